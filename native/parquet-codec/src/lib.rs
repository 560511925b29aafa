//! floe's native Parquet codec: the same arrow-rs Parquet reader and writer that parquet-wasm wraps, compiled
//! for the host instead of WebAssembly. Data crosses as Arrow IPC streams, exactly as with parquet-wasm, so the
//! TypeScript side is the same for both and their output can be compared byte for byte.
use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use napi::bindgen_prelude::{AsyncTask, Buffer, Uint8Array};
use napi::{Env, Error, JsArrayBuffer, Result, Status, Task};
use napi_derive::napi;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use serde::Deserialize;

mod allocator;
mod rewrite;

/// At load (before any row group is decoded): the allocator setting of allocator.rs.
#[napi::module_init]
fn init() {
    allocator::tune_allocator();
}

fn fail(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(Status::GenericFailure, format!("{what}: {e}"))
}

/// Top-level columns by name (file order, whatever order `names` has); None = every column.
fn projection(
    builder_schema: &parquet::schema::types::SchemaDescriptor,
    names: &[String],
) -> ProjectionMask {
    let roots: Vec<usize> = builder_schema
        .root_schema()
        .get_fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| names.iter().any(|n| n == f.name()))
        .map(|(i, _)| i)
        .collect();
    ProjectionMask::roots(builder_schema, roots)
}

/// Checks `names` against the file's top-level columns: asking for one it lacks is an error, as in parquet-wasm.
fn check_columns(
    schema: &parquet::schema::types::SchemaDescriptor,
    names: &[String],
) -> Result<()> {
    let fields = schema.root_schema().get_fields();
    match names
        .iter()
        .find(|n| !fields.iter().any(|f| f.name() == n.as_str()))
    {
        Some(missing) => Err(fail(
            "cannot read Parquet file",
            format!("Column {missing} not found in table"),
        )),
        None => Ok(()),
    }
}

/// The reader options of every decode: the page index is read when present, so a file whose page index is
/// damaged is refused as parquet-wasm refuses it.
fn reader_options() -> ArrowReaderOptions {
    ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Optional)
}

/// Decodes row groups one at a time into one IPC stream: a batch never spans two row groups, which keeps the
/// stream byte-identical to parquet-wasm's (whose reader ends a batch at every row group boundary).
fn decode_with(
    data: &Bytes,
    metadata: &ArrowReaderMetadata,
    row_groups: Vec<u32>,
    columns: Option<Vec<String>>,
    batch_size: u32,
) -> Result<Buffer> {
    let count = metadata.metadata().num_row_groups();
    if let Some(bad) = row_groups.iter().find(|&&i| i as usize >= count) {
        return Err(fail(
            "cannot read Parquet file",
            format!("row group {bad} out of range ({count} row groups)"),
        ));
    }
    let groups: Vec<usize> = if row_groups.is_empty() {
        (0..count).collect()
    } else {
        row_groups.into_iter().map(|i| i as usize).collect()
    };
    let mask = match &columns {
        Some(names) => {
            check_columns(metadata.parquet_schema(), names)?;
            Some(projection(metadata.parquet_schema(), names))
        }
        None => None,
    };
    let builder = |groups: Vec<usize>| {
        let mut b =
            ParquetRecordBatchReaderBuilder::new_with_metadata(data.clone(), metadata.clone())
                .with_row_groups(groups)
                .with_batch_size(batch_size.max(1) as usize);
        if let Some(m) = &mask {
            b = b.with_projection(m.clone());
        }
        b.build().map_err(|e| fail("cannot read Parquet file", e))
    };
    // the stream's schema: the projected file schema, from a reader over no row groups
    let schema = builder(Vec::new())?.schema();
    let mut out = Vec::new();
    {
        let mut w = StreamWriter::try_new(&mut out, &schema)
            .map_err(|e| fail("cannot write Arrow IPC", e))?;
        for g in groups {
            for batch in builder(vec![g])? {
                let batch = batch.map_err(|e| fail("cannot decode Parquet data", e))?;
                w.write(&batch)
                    .map_err(|e| fail("cannot write Arrow IPC", e))?;
            }
        }
        w.finish().map_err(|e| fail("cannot write Arrow IPC", e))?;
    }
    Ok(out.into())
}

/// Detaches an ArrayBuffer the caller is done with, so its memory goes now instead of at V8's next full GC:
/// a buffer that lived across a task's awaits sits in old space, and V8 starts a mark-sweep for external
/// memory only after ~64 MiB of it has piled up (issue 27). False when V8 will not detach it.
#[napi]
pub fn release(buffer: JsArrayBuffer) -> bool {
    buffer.detach().is_ok()
}

/// Decodes the given row groups (all when empty) of one Parquet file, projected to the named top-level
/// columns (all when `columns` is null), as one Arrow IPC stream.
#[napi(catch_unwind)]
pub fn decode(
    bytes: Uint8Array,
    row_groups: Vec<u32>,
    columns: Option<Vec<String>>,
    batch_size: u32,
) -> Result<Buffer> {
    ParquetReader::new(bytes)?.decode(row_groups, columns, batch_size)
}

/// One file opened once (its bytes copied once, its footer parsed once) and decoded a row group at a time.
#[napi]
pub struct ParquetReader {
    data: Bytes,
    metadata: ArrowReaderMetadata,
    closed: bool,
}

#[napi]
impl ParquetReader {
    #[napi(constructor, catch_unwind)]
    pub fn new(bytes: Uint8Array) -> Result<Self> {
        let data = Bytes::copy_from_slice(&bytes);
        let metadata = ArrowReaderMetadata::load(&data, reader_options())
            .map_err(|e| fail("cannot open Parquet file", e))?;
        Ok(ParquetReader {
            data,
            metadata,
            closed: false,
        })
    }

    /// Drops the file's bytes now rather than when the garbage collector finalizes this object.
    #[napi]
    pub fn close(&mut self) {
        self.data = Bytes::new();
        self.closed = true;
    }

    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        row_groups: Vec<u32>,
        columns: Option<Vec<String>>,
        batch_size: u32,
    ) -> Result<Buffer> {
        if self.closed {
            return Err(fail("cannot read Parquet file", "the reader is closed"));
        }
        decode_with(&self.data, &self.metadata, row_groups, columns, batch_size)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Props {
    writer_version: u8,
    compression: String,
    dictionary_enabled: bool,
    data_page_size_limit: usize,
    dictionary_page_size_limit: usize,
    max_row_group_size: usize,
    statistics: String,
    created_by: String,
    #[serde(default)]
    key_value_metadata: Vec<(String, String)>,
    #[serde(default)]
    plain_columns: Vec<String>,
}

fn writer_properties(json: &str) -> Result<WriterProperties> {
    let p: Props = serde_json::from_str(json).map_err(|e| fail("bad writer properties", e))?;
    let compression = match p.compression.as_str() {
        "uncompressed" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(BrotliLevel::default()),
        "lz4_raw" => Compression::LZ4_RAW,
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        other => return Err(fail("unknown Parquet codec", other)),
    };
    let statistics = match p.statistics.as_str() {
        "none" => EnabledStatistics::None,
        "chunk" => EnabledStatistics::Chunk,
        "page" => EnabledStatistics::Page,
        other => return Err(fail("unknown statistics level", other)),
    };
    let mut b = WriterProperties::builder()
        .set_writer_version(match p.writer_version {
            1 => WriterVersion::PARQUET_1_0,
            2 => WriterVersion::PARQUET_2_0,
            other => return Err(fail("unknown Parquet writer version", other)),
        })
        .set_compression(compression)
        .set_dictionary_enabled(p.dictionary_enabled)
        .set_data_page_size_limit(p.data_page_size_limit)
        .set_dictionary_page_size_limit(p.dictionary_page_size_limit)
        .set_max_row_group_row_count(Some(p.max_row_group_size.max(1)))
        .set_statistics_enabled(statistics)
        .set_created_by(p.created_by);
    if !p.key_value_metadata.is_empty() {
        b = b.set_key_value_metadata(Some(
            p.key_value_metadata
                .into_iter()
                .map(|(k, v)| KeyValue::new(k, v))
                .collect(),
        ));
    }
    for c in p.plain_columns {
        b = b.set_column_dictionary_enabled(ColumnPath::from(c), false);
    }
    Ok(b.build())
}

/// Bytes per drain segment. A flushed row group arrives here page by page; in one growing Vec its last
/// doubling would hold 1.5× the row group (old and new allocation) and leave up to 2× reserved, so the drain
/// keeps segments of at most this size instead (issue 27's memory). Also the most `drainInto` copies at once.
const DRAIN_SEGMENT: usize = 4 * 1024 * 1024;

/// Encoded bytes not yet drained: whole segments in order, the first `head` bytes of the front one drained.
#[derive(Default)]
struct Segments {
    queue: VecDeque<Vec<u8>>,
    head: usize,
}

impl Segments {
    fn pending(&self) -> usize {
        self.queue.iter().map(Vec::len).sum::<usize>() - self.head
    }
}

/// The writer's sink: encoded bytes collect here, in segments, until the caller drains them into its own
/// buffer. Each segment is freed as soon as it has been copied out: the bytes leave native memory at a point
/// the caller controls, not when a garbage collection gets round to a Buffer's finalizer (which, with V8's
/// external-memory heuristics, kept one to three flushed row groups alive beside the open one).
#[derive(Clone, Default)]
struct Drain(Arc<Mutex<Segments>>);

impl Write for Drain {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut s = self.0.lock().unwrap();
        let mut rest = buf;
        while !rest.is_empty() {
            let room = match s.queue.back() {
                Some(seg) if seg.len() < DRAIN_SEGMENT => DRAIN_SEGMENT - seg.len(),
                _ => {
                    // Small files stay small: the first segment grows as needed up to DRAIN_SEGMENT; once a
                    // row group is being flushed, the next ones are made whole (no regrowth, no slack).
                    let flushing = !s.queue.is_empty();
                    let cap = if flushing {
                        DRAIN_SEGMENT
                    } else {
                        rest.len().min(DRAIN_SEGMENT)
                    };
                    if flushing {
                        // the column chunks already copied here are freed: their pages go back as we go,
                        // so a flush holds about one row group, not the chunks' freed pages beside it
                        allocator::release_freed();
                    }
                    s.queue.push_back(Vec::with_capacity(cap));
                    DRAIN_SEGMENT
                }
            };
            let n = room.min(rest.len());
            s.queue.back_mut().unwrap().extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drain {
    fn pending(&self) -> usize {
        self.0.lock().unwrap().pending()
    }

    /// Copies the oldest pending bytes into `target` (as many as fit), frees the segments emptied, and returns
    /// how many bytes it copied (0: nothing pending).
    fn drain_into(&self, target: &mut [u8]) -> usize {
        let mut s = self.0.lock().unwrap();
        let mut done = 0;
        while done < target.len() {
            let head = s.head;
            let Some(front) = s.queue.front() else { break };
            let n = (front.len() - head).min(target.len() - done);
            target[done..done + n].copy_from_slice(&front[head..head + n]);
            done += n;
            if head + n == front.len() {
                s.queue.pop_front(); // freed now
                s.head = 0;
            } else {
                s.head = head + n;
            }
        }
        done
    }

    /// Sets the pending bytes aside (what `finish` needs to tell the footer from the body).
    fn set_aside(&self) -> Segments {
        std::mem::take(&mut *self.0.lock().unwrap())
    }

    /// Puts bytes set aside back in front, returning what was written meanwhile as one Vec.
    fn restore(&self, front: Segments) -> Vec<u8> {
        let written = std::mem::replace(&mut *self.0.lock().unwrap(), front);
        let mut out = Vec::with_capacity(written.pending());
        for (i, seg) in written.queue.iter().enumerate() {
            out.extend_from_slice(if i == 0 { &seg[written.head..] } else { seg });
        }
        out
    }
}

/// After a row group was flushed: its pages are freed, so give the heap's free pages back (allocator.rs).
fn flushed(pending: usize) -> u32 {
    if pending > 0 {
        allocator::release_freed();
    }
    pending as u32
}

/// Walks the IPC stream's framing before arrow-ipc reads it: arrow-ipc allocates a message body at the length
/// its header claims, so a length beyond the input would abort the process instead of raising an error.
fn check_ipc_framing(ipc: &[u8]) -> Result<()> {
    let bad = |why: String| fail("cannot read Arrow IPC", why);
    let word = |at: usize| -> Result<u32> {
        ipc.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| bad(format!("stream ends inside a message header at byte {at}")))
    };
    let mut at = 0usize;
    while at < ipc.len() {
        let mut len = word(at)?;
        at += 4;
        if len == 0xFFFF_FFFF {
            len = word(at)?; // continuation marker, then the metadata length
            at += 4;
        }
        if len == 0 {
            return Ok(()); // end-of-stream marker
        }
        let len = len as usize;
        if len > ipc.len() - at {
            return Err(bad(format!(
                "message header of {len} bytes at byte {at} runs past the stream"
            )));
        }
        let message = arrow_ipc::root_as_message(&ipc[at..at + len])
            .map_err(|e| bad(format!("unreadable message header at byte {at}: {e}")))?;
        at += len;
        let body = message.bodyLength();
        if body < 0 || body as u64 > (ipc.len() - at) as u64 {
            return Err(bad(format!(
                "message body of {body} bytes at byte {at} runs past the stream"
            )));
        }
        at += body as usize;
    }
    Ok(())
}

fn batches(ipc: &[u8]) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    check_ipc_framing(ipc)?;
    let reader = StreamReader::try_new(ipc, None).map_err(|e| fail("cannot read Arrow IPC", e))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| fail("cannot read Arrow IPC", e))?;
    Ok((schema, batches))
}

/// Locks state an async task may hold on a libuv thread; a panic there leaves it poisoned: an error, not a
/// second panic.
fn locked<T>(m: &Mutex<T>) -> Result<std::sync::MutexGuard<'_, T>> {
    m.lock().map_err(|_| {
        fail(
            "native codec",
            "an earlier call failed midway; this object is unusable",
        )
    })
}

/// Runs `f` as a libuv task does: a panic becomes an error instead of aborting the process.
fn unwound<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(fail("native codec", "panicked")))
}

/// The state of an `Encoder`, shared with the async tasks that encode on libuv's threads.
struct EncoderCore {
    props: Option<WriterProperties>,
    writer: Option<ArrowWriter<Drain>>,
    schema: Option<SchemaRef>,
    finished: bool,
    drain: Drain,
}

impl EncoderCore {
    fn check_open(&self) -> Result<()> {
        if self.finished {
            return Err(fail(
                "cannot encode Parquet",
                "the file is already finished",
            ));
        }
        Ok(())
    }

    fn writer_for(&mut self, schema: SchemaRef) -> Result<&mut ArrowWriter<Drain>> {
        if self.writer.is_none() {
            let props = self.props.take();
            let w = ArrowWriter::try_new(self.drain.clone(), schema.clone(), props)
                .map_err(|e| fail("cannot start Parquet file", e))?;
            self.writer = Some(w);
            self.schema = Some(schema);
        }
        Ok(self.writer.as_mut().unwrap())
    }

    fn finish(&mut self) -> Result<Vec<u8>> {
        if self.finished {
            return Err(fail(
                "cannot finish Parquet file",
                "the file is already finished",
            ));
        }
        let mut w = self
            .writer
            .take()
            .ok_or_else(|| fail("cannot finish Parquet file", "nothing was written"))?;
        self.finished = true;
        w.flush().map_err(|e| fail("cannot encode Parquet", e))?;
        let body = self.drain.set_aside();
        let closed = w.close();
        // the footer on its own: it is small, and the caller reads (and may amend) it whole
        let footer = self.drain.restore(body);
        closed.map_err(|e| fail("cannot finish Parquet file", e))?;
        flushed(self.drain.pending());
        Ok(footer)
    }
}

/// One Parquet file written incrementally: `write` encodes, and returns how many encoded bytes wait in the drain
/// (closed row groups, the header the first time); `drainInto` hands them out in order into the caller's
/// buffer; `finish` flushes the last row group into the drain and returns the footer (with any body bytes
/// arrow-rs still held, which follow everything drained) as its own Buffer. `finishAsync` (and rewrite.rs'
/// `writeAsync`) do their work on a libuv thread; one call at a time per encoder.
#[napi]
pub struct Encoder {
    core: Arc<Mutex<EncoderCore>>,
    drain: Drain,
}

#[napi]
impl Encoder {
    #[napi(constructor, catch_unwind)]
    pub fn new(props: String) -> Result<Self> {
        let drain = Drain::default();
        let core = EncoderCore {
            props: Some(writer_properties(&props)?),
            writer: None,
            schema: None,
            finished: false,
            drain: drain.clone(),
        };
        Ok(Encoder {
            core: Arc::new(Mutex::new(core)),
            drain,
        })
    }

    /// Writes the batches of one IPC stream; its schema must be the first write's (names, types, nullability,
    /// metadata). Returns the bytes pending in the drain.
    #[napi(catch_unwind)]
    pub fn write(&self, ipc: Uint8Array) -> Result<u32> {
        let mut core = locked(&self.core)?;
        core.check_open()?;
        let (schema, batches) = batches(&ipc)?;
        if let Some(first) = &core.schema {
            if first.fields() != schema.fields() {
                return Err(fail(
                    "cannot encode Parquet",
                    "the batch schema (column names, types or nullability) differs from the file's",
                ));
            }
        }
        let w = core.writer_for(schema)?;
        for b in &batches {
            w.write(b).map_err(|e| fail("cannot encode Parquet", e))?;
        }
        Ok(flushed(self.drain.pending()))
    }

    /// The bytes waiting in the drain.
    #[napi]
    pub fn pending(&self) -> u32 {
        self.drain.pending() as u32
    }

    /// Copies the oldest pending bytes into `target`; returns how many (0 once nothing is pending).
    #[napi(catch_unwind)]
    pub fn drain_into(&self, mut target: Uint8Array) -> u32 {
        self.drain.drain_into(&mut target) as u32
    }

    /// Flushes the open row group into the drain (still to be drained) and returns the footer.
    #[napi(catch_unwind)]
    pub fn finish(&self) -> Result<Buffer> {
        Ok(locked(&self.core)?.finish()?.into())
    }

    /// `finish` on a libuv thread.
    #[napi(ts_return_type = "Promise<Buffer>")]
    pub fn finish_async(&self) -> AsyncTask<FinishTask> {
        AsyncTask::new(FinishTask {
            core: self.core.clone(),
        })
    }
}

pub struct FinishTask {
    core: Arc<Mutex<EncoderCore>>,
}

impl Task for FinishTask {
    type Output = Vec<u8>;
    type JsValue = Buffer;
    fn compute(&mut self) -> Result<Vec<u8>> {
        unwound(|| locked(&self.core)?.finish())
    }
    fn resolve(&mut self, _env: Env, footer: Vec<u8>) -> Result<Buffer> {
        Ok(footer.into())
    }
}

/// A whole file from one IPC stream (a schema without batches gives a file with no row groups).
#[napi(catch_unwind)]
pub fn encode(ipc: Uint8Array, props: String) -> Result<Buffer> {
    let props = writer_properties(&props)?;
    let (schema, batches) = batches(&ipc)?;
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props))
        .map_err(|e| fail("cannot start Parquet file", e))?;
    for b in &batches {
        w.write(b).map_err(|e| fail("cannot encode Parquet", e))?;
    }
    w.close()
        .map_err(|e| fail("cannot finish Parquet file", e))?;
    Ok(out.into())
}
