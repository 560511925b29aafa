//! floe's native Parquet codec: the same arrow-rs Parquet reader and writer that parquet-wasm wraps, compiled
//! for the host instead of WebAssembly. Data crosses as Arrow IPC streams, exactly as with parquet-wasm, so the
//! TypeScript side is the same for both and their output can be compared byte for byte.
use std::io::Write;
use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use napi::bindgen_prelude::{Buffer, Uint8Array};
use napi::{Error, Result, Status};
use napi_derive::napi;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;
use serde::Deserialize;

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

fn decode_with(
    data: Bytes,
    metadata: Option<ArrowReaderMetadata>,
    row_groups: Vec<u32>,
    columns: Option<Vec<String>>,
    batch_size: u32,
) -> Result<Buffer> {
    let mut builder = match metadata {
        Some(m) => ParquetRecordBatchReaderBuilder::new_with_metadata(data, m),
        None => ParquetRecordBatchReaderBuilder::try_new(data)
            .map_err(|e| fail("cannot open Parquet file", e))?,
    };
    if let Some(names) = columns {
        let mask = projection(builder.parquet_schema(), &names);
        builder = builder.with_projection(mask);
    }
    if !row_groups.is_empty() {
        let count = builder.metadata().num_row_groups();
        if let Some(bad) = row_groups.iter().find(|&&i| i as usize >= count) {
            return Err(fail(
                "cannot read Parquet file",
                format!("row group {bad} out of range ({count} row groups)"),
            ));
        }
        builder = builder.with_row_groups(row_groups.into_iter().map(|i| i as usize).collect());
    }
    let reader = builder
        .with_batch_size(batch_size.max(1) as usize)
        .build()
        .map_err(|e| fail("cannot read Parquet file", e))?;
    let schema = reader.schema();
    let mut out = Vec::new();
    {
        let mut w = StreamWriter::try_new(&mut out, &schema)
            .map_err(|e| fail("cannot write Arrow IPC", e))?;
        for batch in reader {
            let batch = batch.map_err(|e| fail("cannot decode Parquet data", e))?;
            w.write(&batch)
                .map_err(|e| fail("cannot write Arrow IPC", e))?;
        }
        w.finish().map_err(|e| fail("cannot write Arrow IPC", e))?;
    }
    Ok(out.into())
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
    decode_with(
        Bytes::copy_from_slice(&bytes),
        None,
        row_groups,
        columns,
        batch_size,
    )
}

/// One file opened once (its bytes copied once, its footer parsed once) and decoded a row group at a time.
#[napi]
pub struct ParquetReader {
    data: Bytes,
    metadata: ArrowReaderMetadata,
}

#[napi]
impl ParquetReader {
    #[napi(constructor, catch_unwind)]
    pub fn new(bytes: Uint8Array) -> Result<Self> {
        let data = Bytes::copy_from_slice(&bytes);
        let metadata = ArrowReaderMetadata::load(&data, ArrowReaderOptions::new())
            .map_err(|e| fail("cannot open Parquet file", e))?;
        Ok(ParquetReader { data, metadata })
    }

    /// Drops the file's bytes now rather than when the garbage collector finalizes this object.
    #[napi]
    pub fn close(&mut self) {
        self.data = Bytes::new();
    }

    #[napi(catch_unwind)]
    pub fn decode(
        &self,
        row_groups: Vec<u32>,
        columns: Option<Vec<String>>,
        batch_size: u32,
    ) -> Result<Buffer> {
        decode_with(
            self.data.clone(),
            Some(self.metadata.clone()),
            row_groups,
            columns,
            batch_size,
        )
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
        .set_writer_version(if p.writer_version == 2 {
            WriterVersion::PARQUET_2_0
        } else {
            WriterVersion::PARQUET_1_0
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

/// The writer's sink: encoded bytes collect here until the caller drains them.
#[derive(Clone, Default)]
struct Drain(Arc<Mutex<Vec<u8>>>);

impl Write for Drain {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drain {
    fn take(&self) -> Buffer {
        std::mem::take(&mut *self.0.lock().unwrap()).into()
    }
}

fn batches(ipc: &[u8]) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let reader = StreamReader::try_new(ipc, None).map_err(|e| fail("cannot read Arrow IPC", e))?;
    let schema = reader.schema();
    let batches = reader
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| fail("cannot read Arrow IPC", e))?;
    Ok((schema, batches))
}

/// One Parquet file written incrementally: each `write` returns the bytes encoded since the last call (closed
/// row groups, and the header the first time); `finish` returns the rest of the body, then the footer.
#[napi]
pub struct Encoder {
    props: Option<WriterProperties>,
    writer: Option<ArrowWriter<Drain>>,
    drain: Drain,
}

#[napi]
impl Encoder {
    #[napi(constructor, catch_unwind)]
    pub fn new(props: String) -> Result<Self> {
        Ok(Encoder {
            props: Some(writer_properties(&props)?),
            writer: None,
            drain: Drain::default(),
        })
    }

    /// Writes the batches of one IPC stream (its schema must be the file's).
    #[napi(catch_unwind)]
    pub fn write(&mut self, ipc: Uint8Array) -> Result<Buffer> {
        let (schema, batches) = batches(&ipc)?;
        let w = self.writer_for(schema)?;
        for b in &batches {
            w.write(b).map_err(|e| fail("cannot encode Parquet", e))?;
        }
        Ok(self.drain.take())
    }

    #[napi(catch_unwind)]
    pub fn finish(&mut self) -> Result<Vec<Buffer>> {
        let mut w = self
            .writer
            .take()
            .ok_or_else(|| fail("cannot finish Parquet file", "nothing was written"))?;
        w.flush().map_err(|e| fail("cannot encode Parquet", e))?;
        let body = self.drain.take();
        w.close()
            .map_err(|e| fail("cannot finish Parquet file", e))?;
        Ok(vec![body, self.drain.take()])
    }

    fn writer_for(&mut self, schema: SchemaRef) -> Result<&mut ArrowWriter<Drain>> {
        if self.writer.is_none() {
            let props = self.props.take();
            let w = ArrowWriter::try_new(self.drain.clone(), schema, props)
                .map_err(|e| fail("cannot start Parquet file", e))?;
            self.writer = Some(w);
        }
        Ok(self.writer.as_mut().unwrap())
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
