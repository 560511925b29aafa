// floe-s3-server: the S3-compatible server floe's integration tests run against.
//
// It is gofakes3 (MIT) on a bolt file in a data directory, plus two things gofakes3 lacks and floe's
// tests rely on:
//   - SigV4 verification, so wrong credentials get 403 like real S3 (gofakes3 accepts any request);
//   - RFC/AWS suffix ranges: "bytes=-N" with N past the size serves the whole object (gofakes3: 416);
//   - AWS's conditional-PUT semantics, made atomic: every PutObject (including the one that completes a
//     multipart upload) runs under one mutex, and If-Match on a missing key answers 404 NoSuchKey as
//     AWS does (gofakes3 alone answers 412).
//
// It listens on -addr (port 0 picks a free port) and prints "LISTENING host:port" once it accepts.
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3bolt"
)

// lockedBackend serialises writes so a conditional check and the write it guards are one step.
type lockedBackend struct {
	gofakes3.Backend
	mu sync.Mutex
}

func (b *lockedBackend) PutObject(bucket, key string, meta map[string]string, input io.Reader, size int64,
	cond *gofakes3.PutConditions) (gofakes3.PutObjectResult, error) {
	// Read the body before taking the lock: a slow client must not stall every other writer.
	body, err := gofakes3.ReadAll(input, size)
	if err != nil {
		return gofakes3.PutObjectResult{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if cond != nil && cond.IfMatch != nil {
		if _, err := b.Backend.HeadObject(bucket, key); err != nil {
			if gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey) {
				return gofakes3.PutObjectResult{}, gofakes3.KeyNotFound(key)
			}
			return gofakes3.PutObjectResult{}, err
		}
	}
	return b.Backend.PutObject(bucket, key, meta, bytes.NewReader(body), int64(len(body)), cond)
}

func (b *lockedBackend) DeleteObject(bucket, key string) (gofakes3.ObjectDeleteResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Backend.DeleteObject(bucket, key)
}

func (b *lockedBackend) DeleteMulti(bucket string, keys ...string) (gofakes3.MultiDeleteResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Backend.DeleteMulti(bucket, keys...)
}

// sigV4 checks AWS Signature Version 4 header authentication against one access key pair.
type sigV4 struct {
	accessKey, secretKey string
	verbose              bool
	backend              gofakes3.Backend
	next                 http.Handler
}

func writeS3Error(w http.ResponseWriter, status int, code, msg, resource string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message><Resource>%s</Resource></Error>`,
		code, msg, resource)
}

// uriEncode is SigV4's encoding: everything but unreserved characters as %XX, upper-case hex.
func uriEncode(s string) string {
	var sb strings.Builder
	for _, c := range []byte(s) {
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			c == '-' || c == '_' || c == '.' || c == '~' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	var pairs []string
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		dk, err1 := url.PathUnescape(k)
		dv, err2 := url.PathUnescape(v)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		pairs = append(pairs, uriEncode(dk)+"="+uriEncode(dv))
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func (s *sigV4) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resource := r.URL.Path
	auth := r.Header.Get("Authorization")
	const algo = "AWS4-HMAC-SHA256 "
	if !strings.HasPrefix(auth, algo) {
		writeS3Error(w, http.StatusForbidden, "AccessDenied", "Anonymous or non-SigV4 requests are not allowed", resource)
		return
	}
	fields := map[string]string{}
	for _, f := range strings.Split(strings.TrimPrefix(auth, algo), ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 {
		writeS3Error(w, http.StatusForbidden, "AccessDenied", "Malformed credential scope", resource)
		return
	}
	if scope[0] != s.accessKey {
		writeS3Error(w, http.StatusForbidden, "InvalidAccessKeyId",
			"The AWS Access Key Id you provided does not exist in our records.", resource)
		return
	}
	signed := strings.Split(fields["SignedHeaders"], ";")
	var canonHeaders strings.Builder
	for _, name := range signed {
		var value string
		switch name {
		case "host":
			value = r.Host
		case "content-length":
			value = r.Header.Get("Content-Length")
			if value == "" {
				value = strconv.FormatInt(r.ContentLength, 10)
			}
		default:
			value = strings.Join(r.Header.Values(name), ",")
		}
		value = strings.Join(strings.Fields(value), " ")
		canonHeaders.WriteString(name + ":" + value + "\n")
	}
	path := r.RequestURI
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	payloadHash := r.Header.Get("X-Amz-Content-Sha256")
	if payloadHash == "" {
		payloadHash = "UNSIGNED-PAYLOAD"
	}
	canonical := strings.Join([]string{r.Method, path, canonicalQuery(r.URL.RawQuery),
		canonHeaders.String(), fields["SignedHeaders"], payloadHash}, "\n")
	digest := sha256.Sum256([]byte(canonical))
	amzDate := r.Header.Get("X-Amz-Date")
	toSign := strings.Join([]string{"AWS4-HMAC-SHA256", amzDate, strings.Join(scope[1:], "/"), hex.EncodeToString(digest[:])}, "\n")
	key := hmacSHA256([]byte("AWS4"+s.secretKey), scope[1])
	key = hmacSHA256(key, scope[2])
	key = hmacSHA256(key, scope[3])
	key = hmacSHA256(key, scope[4])
	want := hex.EncodeToString(hmacSHA256(key, toSign))
	if !hmac.Equal([]byte(want), []byte(fields["Signature"])) {
		if s.verbose {
			log.Printf("signature mismatch; canonical request:\n%s\nstring to sign:\n%s", canonical, toSign)
		}
		writeS3Error(w, http.StatusForbidden, "SignatureDoesNotMatch",
			"The request signature we calculated does not match the signature you provided.", resource)
		return
	}
	s.fixSuffixRange(r)
	s.next.ServeHTTP(w, r)
}

// fixSuffixRange: RFC 9110 (and AWS) serve the whole object for "bytes=-N" when N exceeds its size;
// gofakes3 answers 416. Dropping the header gives the same bytes.
func (s *sigV4) fixSuffixRange(r *http.Request) {
	rng := r.Header.Get("Range")
	if r.Method != http.MethodGet || !strings.HasPrefix(rng, "bytes=-") {
		return
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(rng, "bytes=-"), 10, 64)
	if err != nil {
		return
	}
	bucket, key, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if !ok {
		return
	}
	if obj, err := s.backend.HeadObject(bucket, key); err == nil && n >= obj.Size {
		r.Header.Del("Range")
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address; port 0 picks a free port")
	data := flag.String("data", "", "directory for the bolt database (required)")
	accessKey := flag.String("access-key", "floe-test", "the one accepted access key id")
	secretKey := flag.String("secret-key", "floe-test-secret", "its secret key")
	bucket := flag.String("bucket", "", "bucket to create at start (optional)")
	verbose := flag.Bool("verbose", false, "log every request")
	flag.Parse()
	if *data == "" {
		log.Fatal("-data is required")
	}
	if err := os.MkdirAll(*data, 0o755); err != nil {
		log.Fatal(err)
	}
	inner, err := s3bolt.NewFile(filepath.Join(*data, "s3.bolt"))
	if err != nil {
		log.Fatal(err)
	}
	backend := &lockedBackend{Backend: inner}
	if *bucket != "" {
		if exists, _ := backend.BucketExists(*bucket); !exists {
			if err := backend.CreateBucket(*bucket); err != nil {
				log.Fatal(err)
			}
		}
	}
	opts := []gofakes3.Option{gofakes3.WithoutVersioning()}
	if *verbose {
		opts = append(opts, gofakes3.WithGlobalLog())
	}
	faker := gofakes3.New(backend, opts...)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("LISTENING %s\n", ln.Addr().String())
	os.Stdout.Sync()
	log.Fatal(http.Serve(ln, &sigV4{accessKey: *accessKey, secretKey: *secretKey, verbose: *verbose, backend: backend, next: faker.Server()}))
}
