//! The rewrite fast path (issue 27): one input file's row groups decoded, their deleted rows dropped and their
//! columns aligned with the output schema, then encoded into an `Encoder` — all inside the addon, so columns
//! never cross into JS as Arrow IPC.
//!
//! It is only an alternative route to what the JS path does (read.ts → cast.ts → slice-rows.ts → writer.ts),
//! so it mirrors its choices exactly where they change the bytes written: row groups are decoded in batches of
//! 65 536 rows; a batch keeps its rows as zero-copy slices when at most 16 kept ranges remain, else as one
//! gathered batch (slice-rows.ts' MAX_SLICES_PER_BATCH). Casts are only those with identical values (same type,
//! signed integer / float widening, decimal precision growth, timestamp zone spelling, large → small offsets,
//! absent optional column as nulls); any other difference makes the file ineligible and JS takes it.
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{
    new_null_array, Array, ArrayRef, BinaryArray, BooleanArray, RecordBatch, RecordBatchReader,
    StringArray,
};
use arrow_ipc::reader::StreamReader;
use arrow_schema::{DataType, Field, SchemaRef, TimeUnit};
use arrow_select::filter::filter_record_batch;
use bytes::Bytes;
use napi::bindgen_prelude::{AsyncTask, Uint8Array};
use napi::{Env, Result, Task};
use napi_derive::napi;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use serde::Deserialize;

use super::{
    check_columns, check_ipc_framing, fail, locked, projection, reader_options, unwound, Encoder,
    EncoderCore,
};

/// read.ts' batch size: the JS path's batches, hence its slices and the encoder's page boundaries, are these.
const BATCH_ROWS: usize = 65_536;
/// slice-rows.ts' MAX_SLICES_PER_BATCH.
const MAX_SLICES_PER_BATCH: usize = 16;
/// dictionary-choice.ts' DICTIONARY_SAMPLE.
const DICTIONARY_SAMPLE: usize = 4096;
const FIELD_ID_KEY: &str = "PARQUET:field_id";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Plan {
    /// Per output column, the file's top-level column holding it (resolved by field id or name mapping in
    /// JS, as read.ts resolves it); null when the file lacks it.
    columns: Vec<Option<String>>,
}

/// How one output column is made from the file's column.
#[derive(Clone)]
enum Conversion {
    Same,
    /// The same values and layout under another type (decimal precision, timestamp zone spelling).
    Relabel(DataType),
    WidenInt,
    WidenFloat,
    NarrowOffsets,
    Nulls,
}

fn conversion(src: &DataType, target: &DataType) -> Option<Conversion> {
    use DataType::*;
    if src == target {
        return Some(Conversion::Same);
    }
    match (src, target) {
        (Int8 | Int16, Int32) | (Int8 | Int16 | Int32, Int64) => Some(Conversion::WidenInt),
        (Float32, Float64) => Some(Conversion::WidenFloat),
        (Decimal128(p, s), Decimal128(tp, ts)) if s == ts && p <= tp => {
            Some(Conversion::Relabel(target.clone()))
        }
        (Decimal256(p, s), Decimal256(tp, ts)) if s == ts && p <= tp => {
            Some(Conversion::Relabel(target.clone()))
        }
        // cast.ts: 'UTC' and '+00:00' are the same instant type; a unit change is left to JS
        (Timestamp(u, Some(_)), Timestamp(tu, Some(_))) if u == tu => {
            Some(Conversion::Relabel(target.clone()))
        }
        (LargeUtf8, Utf8) | (LargeBinary, Binary) => Some(Conversion::NarrowOffsets),
        _ => None,
    }
}

fn convert(a: &ArrayRef, how: &Conversion, target: &DataType, rows: usize) -> Result<ArrayRef> {
    let bad = |e: arrow_schema::ArrowError| fail("cannot align column", e);
    Ok(match how {
        Conversion::Same => a.clone(),
        Conversion::Nulls => new_null_array(target, rows),
        Conversion::WidenInt => match (a.data_type(), target) {
            (DataType::Int8, DataType::Int32) => Arc::new(
                a.as_primitive::<Int8Type>()
                    .unary::<_, Int32Type>(|v| v as i32),
            ),
            (DataType::Int16, DataType::Int32) => Arc::new(
                a.as_primitive::<Int16Type>()
                    .unary::<_, Int32Type>(|v| v as i32),
            ),
            (DataType::Int8, _) => Arc::new(
                a.as_primitive::<Int8Type>()
                    .unary::<_, Int64Type>(|v| v as i64),
            ),
            (DataType::Int16, _) => Arc::new(
                a.as_primitive::<Int16Type>()
                    .unary::<_, Int64Type>(|v| v as i64),
            ),
            _ => Arc::new(
                a.as_primitive::<Int32Type>()
                    .unary::<_, Int64Type>(|v| v as i64),
            ),
        },
        Conversion::WidenFloat => Arc::new(
            a.as_primitive::<Float32Type>()
                .unary::<_, Float64Type>(|v| v as f64),
        ),
        Conversion::NarrowOffsets => match a.data_type() {
            DataType::LargeUtf8 => Arc::new(StringArray::from_iter(a.as_string::<i64>().iter())),
            _ => Arc::new(BinaryArray::from_iter(a.as_binary::<i64>().iter())),
        },
        Conversion::Relabel(t) => match t {
            DataType::Decimal128(p, s) => Arc::new(
                a.as_primitive::<arrow_array::types::Decimal128Type>()
                    .clone()
                    .with_precision_and_scale(*p, *s)
                    .map_err(bad)?,
            ) as ArrayRef,
            DataType::Decimal256(p, s) => Arc::new(
                a.as_primitive::<arrow_array::types::Decimal256Type>()
                    .clone()
                    .with_precision_and_scale(*p, *s)
                    .map_err(bad)?,
            ),
            DataType::Timestamp(unit, tz) => {
                let tz = tz.clone();
                match unit {
                    TimeUnit::Second => Arc::new(
                        a.as_primitive::<TimestampSecondType>()
                            .clone()
                            .with_timezone_opt(tz),
                    ),
                    TimeUnit::Millisecond => Arc::new(
                        a.as_primitive::<TimestampMillisecondType>()
                            .clone()
                            .with_timezone_opt(tz),
                    ),
                    TimeUnit::Microsecond => Arc::new(
                        a.as_primitive::<TimestampMicrosecondType>()
                            .clone()
                            .with_timezone_opt(tz),
                    ),
                    TimeUnit::Nanosecond => Arc::new(
                        a.as_primitive::<TimestampNanosecondType>()
                            .clone()
                            .with_timezone_opt(tz),
                    ),
                }
            }
            _ => return Err(fail("cannot align column", "unexpected relabel")),
        },
    })
}

/// What one row group gave: the counts and estimates the JS writer decides with, and float metrics.
#[napi(object)]
pub struct PreparedRowGroup {
    /// Rows kept (not deleted).
    pub kept: u32,
    /// Buffer bytes of the kept rows' columns (writer.ts' arrowByteLength, as arrow-rs counts them).
    pub arrow_bytes: f64,
    /// Per output column, dictionary-choice.ts' sample: [visited, sampled, distinct, firstHalf, secondHalf,
    /// overlap, avgBytes] (its sampleAt), visited < 0 when the column is not sampled; empty unless asked for.
    pub samples: Vec<f64>,
    /// Float / double columns reachable through structs (writer.ts' FloatMetrics), by field id.
    pub float_ids: Vec<i32>,
    pub float_nans: Vec<f64>,
    /// Whether the column had a non-NaN non-null value; min / max are meaningful only then.
    pub float_any: Vec<bool>,
    pub float_mins: Vec<f64>,
    pub float_maxs: Vec<f64>,
}

/// The state of a `RewriteSource`, shared with the async tasks that decode and encode on libuv's threads.
pub struct SourceCore {
    data: Bytes,
    metadata: ArrowReaderMetadata,
    mask: Option<Vec<u8>>,
    columns: Option<ProjectionMask>,
    /// Per output column: the decoded column's index and how it becomes the output's.
    plan: Vec<(Option<usize>, Conversion)>,
    schema: SchemaRef,
    ineligible: Option<String>,
    pending: Vec<RecordBatch>,
    closed: bool,
}

fn output_schema(ipc: &[u8]) -> Result<SchemaRef> {
    check_ipc_framing(ipc)?;
    let r = StreamReader::try_new(ipc, None).map_err(|e| fail("cannot read Arrow IPC", e))?;
    Ok(r.schema())
}

/// One input file being rewritten: opened once, then a row group at a time `prepare`d and `write`n — each
/// also as `prepareAsync` / `writeAsync`, which do the work on a libuv thread (one call at a time per source).
#[napi]
pub struct RewriteSource {
    core: Arc<Mutex<SourceCore>>,
    ineligible: Option<String>,
}

#[napi]
impl RewriteSource {
    /// `schema_ipc`: an IPC stream holding the output schema (the writer's encoded schema); `mask`: one byte per
    /// row of the file, 1 = deleted (absent: nothing deleted).
    #[napi(constructor, catch_unwind)]
    pub fn new(
        bytes: Uint8Array,
        schema_ipc: Uint8Array,
        plan: String,
        mask: Option<Uint8Array>,
    ) -> Result<Self> {
        let core = SourceCore::open(&bytes, &schema_ipc, &plan, mask.as_deref())?;
        Ok(RewriteSource {
            ineligible: core.ineligible.clone(),
            core: Arc::new(Mutex::new(core)),
        })
    }

    /// Why JS must rewrite this file itself (null: the fast path gives the same rows and values).
    #[napi(getter)]
    pub fn ineligible(&self) -> Option<String> {
        self.ineligible.clone()
    }

    /// Frees the file's bytes and any prepared rows now.
    #[napi]
    pub fn close(&self) {
        if let Ok(mut core) = self.core.lock() {
            core.close();
        }
    }

    /// Decodes row group `index`, aligns it and drops its deleted rows; the result waits for `write`.
    /// `sample`: also sample each column as dictionary-choice.ts does (the first write of an output).
    #[napi(catch_unwind)]
    pub fn prepare(&self, index: u32, sample: bool) -> Result<PreparedRowGroup> {
        locked(&self.core)?.prepare(index, sample)
    }

    /// `prepare` on a libuv thread.
    #[napi(ts_return_type = "Promise<PreparedRowGroup>")]
    pub fn prepare_async(&self, index: u32, sample: bool) -> AsyncTask<PrepareTask> {
        AsyncTask::new(PrepareTask {
            core: self.core.clone(),
            index,
            sample,
        })
    }

    /// Encodes the prepared rows into `encoder` (whose file has this output schema); returns the bytes
    /// pending in its drain (closed row groups, the header the first time), as `Encoder.write` does.
    #[napi(catch_unwind)]
    pub fn write(&self, encoder: &Encoder) -> Result<u32> {
        locked(&self.core)?.write(&mut *locked(&encoder.core)?)
    }

    /// `write` on a libuv thread.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn write_async(&self, encoder: &Encoder) -> AsyncTask<WriteTask> {
        AsyncTask::new(WriteTask {
            core: self.core.clone(),
            encoder: encoder.core.clone(),
        })
    }
}

pub struct PrepareTask {
    core: Arc<Mutex<SourceCore>>,
    index: u32,
    sample: bool,
}

impl Task for PrepareTask {
    type Output = PreparedRowGroup;
    type JsValue = PreparedRowGroup;
    fn compute(&mut self) -> Result<PreparedRowGroup> {
        unwound(|| locked(&self.core)?.prepare(self.index, self.sample))
    }
    fn resolve(&mut self, _env: Env, out: PreparedRowGroup) -> Result<PreparedRowGroup> {
        Ok(out)
    }
}

pub struct WriteTask {
    core: Arc<Mutex<SourceCore>>,
    encoder: Arc<Mutex<EncoderCore>>,
}

impl Task for WriteTask {
    type Output = u32;
    type JsValue = u32;
    fn compute(&mut self) -> Result<u32> {
        // always the source first, then the encoder: no two tasks wait on each other
        unwound(|| locked(&self.core)?.write(&mut *locked(&self.encoder)?))
    }
    fn resolve(&mut self, _env: Env, pending: u32) -> Result<u32> {
        Ok(pending)
    }
}

impl SourceCore {
    /// RewriteSource's constructor, on plain slices (the file's bytes are copied).
    fn open(bytes: &[u8], schema_ipc: &[u8], plan: &str, mask: Option<&[u8]>) -> Result<Self> {
        let schema = output_schema(schema_ipc)?;
        let p: Plan = serde_json::from_str(plan).map_err(|e| fail("bad rewrite plan", e))?;
        if p.columns.len() != schema.fields().len() {
            return Err(fail(
                "bad rewrite plan",
                "one column per output field expected",
            ));
        }
        let data = Bytes::copy_from_slice(bytes);
        let metadata = ArrowReaderMetadata::load(&data, reader_options())
            .map_err(|e| fail("cannot open Parquet file", e))?;
        let rows = metadata.metadata().file_metadata().num_rows();
        let mask = mask.map(|m| m.to_vec());
        if let Some(m) = &mask {
            if m.len() as i64 != rows {
                return Err(fail(
                    "bad deletion mask",
                    format!("{} bytes for {rows} rows", m.len()),
                ));
            }
        }
        let names: Vec<String> = p.columns.iter().flatten().cloned().collect();
        check_columns(metadata.parquet_schema(), &names)?;
        let columns = Some(projection(metadata.parquet_schema(), &names));
        let mut b =
            ParquetRecordBatchReaderBuilder::new_with_metadata(data.clone(), metadata.clone())
                .with_row_groups(Vec::new());
        if let Some(m) = &columns {
            b = b.with_projection(m.clone());
        }
        let decoded = b
            .build()
            .map_err(|e| fail("cannot read Parquet file", e))?
            .schema();
        let mut ineligible = None;
        let mut out_plan = Vec::new();
        for (target, src) in schema.fields().iter().zip(&p.columns) {
            let step = match src {
                None => {
                    if !target.is_nullable() {
                        ineligible
                            .get_or_insert(format!("required column {} is missing", target.name()));
                    }
                    (None, Conversion::Nulls)
                }
                Some(name) => {
                    let i = decoded
                        .index_of(name)
                        .map_err(|e| fail("cannot read Parquet file", e))?;
                    let from = decoded.field(i).data_type();
                    match conversion(from, target.data_type()) {
                        Some(c) => (Some(i), c),
                        None => {
                            ineligible.get_or_insert(format!(
                                "column {} is {from} in the file, {} in the output",
                                target.name(),
                                target.data_type()
                            ));
                            (Some(i), Conversion::Same)
                        }
                    }
                }
            };
            out_plan.push(step);
        }
        Ok(SourceCore {
            data,
            metadata,
            mask,
            columns,
            plan: out_plan,
            schema,
            ineligible,
            pending: Vec::new(),
            closed: false,
        })
    }

    pub fn close(&mut self) {
        self.data = Bytes::new();
        self.pending.clear();
        self.closed = true;
    }

    /// Decodes row group `index`, aligns it and drops its deleted rows; the result waits for `write`.
    /// `sample`: also sample each column as dictionary-choice.ts does (the first write of an output).
    pub fn prepare(&mut self, index: u32, sample: bool) -> Result<PreparedRowGroup> {
        if self.closed || self.ineligible.is_some() {
            return Err(fail(
                "cannot rewrite Parquet file",
                "the source is closed or ineligible",
            ));
        }
        let md = self.metadata.metadata();
        let g = index as usize;
        if g >= md.num_row_groups() {
            return Err(fail(
                "cannot read Parquet file",
                format!("row group {g} out of range"),
            ));
        }
        let start: i64 = (0..g).map(|i| md.row_group(i).num_rows()).sum();
        let mut b = ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.data.clone(),
            self.metadata.clone(),
        )
        .with_row_groups(vec![g])
        .with_batch_size(BATCH_ROWS);
        if let Some(m) = &self.columns {
            b = b.with_projection(m.clone());
        }
        let reader = b.build().map_err(|e| fail("cannot read Parquet file", e))?;
        let mut at = start as usize;
        let mut kept = Vec::new();
        for batch in reader {
            let batch = batch.map_err(|e| fail("cannot decode Parquet data", e))?;
            let n = batch.num_rows();
            let aligned = self.align(&batch)?;
            let rows = self.mask.as_deref().map(|m| &m[at..at + n]);
            at += n;
            select(aligned, rows, &mut kept)?;
        }
        let info = describe(&self.schema, &kept, sample);
        self.pending = kept;
        Ok(info)
    }

    /// Encodes the prepared rows into `encoder` (whose file has this output schema); returns the bytes
    /// pending in its drain (closed row groups, the header the first time), as `Encoder.write` does.
    fn write(&mut self, encoder: &mut EncoderCore) -> Result<u32> {
        if encoder.finished {
            return Err(fail(
                "cannot encode Parquet",
                "the file is already finished",
            ));
        }
        if let Some(first) = &encoder.schema {
            if first.fields() != self.schema.fields() {
                return Err(fail(
                    "cannot encode Parquet",
                    "the rewrite's schema differs from the file's",
                ));
            }
        }
        let batches = std::mem::take(&mut self.pending);
        let w = encoder.writer_for(self.schema.clone())?;
        for b in &batches {
            w.write(b).map_err(|e| fail("cannot encode Parquet", e))?;
        }
        Ok(crate::flushed(encoder.drain.pending()))
    }

    fn align(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let n = batch.num_rows();
        let mut cols = Vec::with_capacity(self.plan.len());
        for ((src, how), target) in self.plan.iter().zip(self.schema.fields()) {
            let a = match src {
                Some(i) => convert(batch.column(*i), how, target.data_type(), n)?,
                None => new_null_array(target.data_type(), n),
            };
            if !target.is_nullable() && a.null_count() > 0 {
                // cast.ts' checkRequired: the whole batch, deleted rows included
                return Err(fail(
                    "Unsupported",
                    format!(
                        "column {} is required but the data has {} nulls",
                        target.name(),
                        a.null_count()
                    ),
                ));
            }
            cols.push(a);
        }
        RecordBatch::try_new(self.schema.clone(), cols).map_err(|e| fail("cannot align columns", e))
    }
}

/// slice-rows.ts' dropRows for one batch: kept rows as ≤ 16 zero-copy slices, else one gathered batch.
fn select(batch: RecordBatch, deleted: Option<&[u8]>, out: &mut Vec<RecordBatch>) -> Result<()> {
    let Some(deleted) = deleted else {
        out.push(batch);
        return Ok(());
    };
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut from: Option<usize> = None;
    for (i, &d) in deleted.iter().enumerate() {
        match (d == 1, from) {
            (true, Some(s)) => {
                ranges.push((s, i));
                from = None;
            }
            (false, None) => from = Some(i),
            _ => {}
        }
    }
    if let Some(s) = from {
        ranges.push((s, deleted.len()));
    }
    if ranges.len() <= MAX_SLICES_PER_BATCH {
        out.extend(ranges.into_iter().map(|(s, e)| batch.slice(s, e - s)));
        return Ok(());
    }
    let keep = BooleanArray::from(deleted.iter().map(|&d| d != 1).collect::<Vec<bool>>());
    out.push(filter_record_batch(&batch, &keep).map_err(|e| fail("cannot drop deleted rows", e))?);
    Ok(())
}

fn describe(schema: &SchemaRef, batches: &[RecordBatch], sample: bool) -> PreparedRowGroup {
    let mut info = PreparedRowGroup {
        kept: batches.iter().map(|b| b.num_rows() as u32).sum(),
        arrow_bytes: 0.0,
        samples: Vec::new(),
        float_ids: Vec::new(),
        float_nans: Vec::new(),
        float_any: Vec::new(),
        float_mins: Vec::new(),
        float_maxs: Vec::new(),
    };
    for b in batches {
        for c in b.columns() {
            let d = c.to_data();
            let nulls = if d.nulls().is_none() {
                d.len().div_ceil(8)
            } else {
                0
            };
            info.arrow_bytes += (d.get_slice_memory_size().unwrap_or(0) + nulls) as f64;
        }
    }
    if sample {
        for c in 0..schema.fields().len() {
            let parts: Vec<&ArrayRef> = batches
                .iter()
                .map(|b| b.column(c))
                .filter(|a| !a.is_empty())
                .collect();
            match distinct_sample(&parts) {
                Some(s) => info.samples.extend(s),
                None => info.samples.extend([-1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            }
        }
    }
    for (c, field) in schema.fields().iter().enumerate() {
        let cols: Vec<ArrayRef> = batches.iter().map(|b| b.column(c).clone()).collect();
        float_metrics(field, &cols, &mut info);
    }
    info
}

/// dictionary-choice.ts' fixedWidth, by arrow-rs type.
fn fixed_width(t: &DataType) -> Option<usize> {
    use DataType::*;
    Some(match t {
        Int8 | UInt8 => 1,
        Int16 | UInt16 | Float16 => 2,
        Int32 | UInt32 | Float32 | Date32 | Time32(_) => 4,
        Int64 | UInt64 | Float64 | Date64 | Time64(_) | Timestamp(_, _) => 8,
        Decimal128(_, _) => 16,
        Decimal256(_, _) => 32,
        FixedSizeBinary(w) => *w as usize,
        _ => return None,
    })
}

/// dictionary-choice.ts' distinctSample over the same values in the same order: [visited, sampled, distinct,
/// firstHalf, secondHalf, overlap, avgBytes] (distinct values in the sample's two halves and in both).
fn distinct_sample(parts: &[&ArrayRef]) -> Option<[f64; 7]> {
    let t = parts.first()?.data_type().clone();
    let width = fixed_width(&t);
    let variable = matches!(
        t,
        DataType::Utf8 | DataType::Binary | DataType::LargeUtf8 | DataType::LargeBinary
    );
    if width.is_none() && !variable {
        return None;
    }
    let total: usize = parts.iter().map(|a| a.len()).sum();
    let stride = (total / DICTIONARY_SAMPLE).max(1);
    let mut hashes: Vec<u32> = Vec::with_capacity(DICTIONARY_SAMPLE);
    let mut visited = 0usize;
    let mut bytes = 0usize;
    for a in parts {
        let d = a.to_data();
        let has_nulls = a.null_count() > 0;
        let mut i = 0;
        while i < a.len() && hashes.len() < DICTIONARY_SAMPLE {
            visited += 1;
            if !(has_nulls && a.is_null(i)) {
                let value: &[u8] = match (&t, width) {
                    (DataType::Utf8, _) => a.as_string::<i32>().value(i).as_bytes(),
                    (DataType::LargeUtf8, _) => a.as_string::<i64>().value(i).as_bytes(),
                    (DataType::Binary, _) => a.as_binary::<i32>().value(i),
                    (DataType::LargeBinary, _) => a.as_binary::<i64>().value(i),
                    (DataType::FixedSizeBinary(_), _) => a.as_fixed_size_binary().value(i),
                    (_, Some(w)) => {
                        let at = (d.offset() + i) * w;
                        &d.buffers()[0].as_slice()[at..at + w]
                    }
                    _ => unreachable!(),
                };
                hashes.push(hash_bytes(value));
                bytes += value.len() + if variable { 4 } else { 0 };
            }
            i += stride;
        }
    }
    let sampled = hashes.len();
    let half = sampled >> 1;
    let first: HashSet<u32> = hashes[..half].iter().copied().collect();
    let second: HashSet<u32> = hashes[half..].iter().copied().collect();
    let overlap = second.iter().filter(|h| first.contains(h)).count();
    let avg = if sampled > 0 {
        bytes as f64 / sampled as f64
    } else {
        0.0
    };
    Some([
        visited as f64,
        sampled as f64,
        (first.len() + second.len() - overlap) as f64,
        first.len() as f64,
        second.len() as f64,
        overlap as f64,
        avg,
    ])
}

/// dictionary-choice.ts' hashBytes (FNV-1a, avalanche, 30 bits), in u32 arithmetic as JS' Math.imul does it.
fn hash_bytes(b: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5 ^ (b.len() as u32);
    for &x in b {
        h = (h ^ x as u32).wrapping_mul(0x0100_0193);
    }
    h = (h ^ (h >> 15)).wrapping_mul(0x2c1b_3c6d);
    h = (h ^ (h >> 12)).wrapping_mul(0x297a_2d39);
    (h ^ (h >> 15)) & 0x3fff_ffff
}

fn field_id(f: &Field) -> Option<i32> {
    f.metadata().get(FIELD_ID_KEY).and_then(|v| v.parse().ok())
}

/// Java's Double.compare order without NaN: -0.0 before +0.0 (writer.ts' compareFloat).
fn less(a: f64, b: f64) -> bool {
    a < b || (a == 0.0 && b == 0.0 && a.is_sign_negative() && !b.is_sign_negative())
}

/// writer.ts' FloatMetrics.visit for one field over the given arrays (structs walked, lists / maps not).
fn float_metrics(field: &Field, arrays: &[ArrayRef], info: &mut PreparedRowGroup) {
    match field.data_type() {
        DataType::Float32 | DataType::Float64 => {
            let Some(id) = field_id(field) else { return };
            let (mut nan, mut any) = (0u64, false);
            let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
            let mut see = |v: f64| {
                if v.is_nan() {
                    nan += 1;
                    return;
                }
                any = true;
                if less(v, min) {
                    min = v;
                }
                if less(max, v) {
                    max = v;
                }
            };
            for a in arrays {
                let valid = |i: usize| a.null_count() == 0 || a.is_valid(i);
                if let Some(p) = a.as_primitive_opt::<Float64Type>() {
                    (0..p.len())
                        .filter(|&i| valid(i))
                        .for_each(|i| see(p.value(i)));
                } else if let Some(p) = a.as_primitive_opt::<Float32Type>() {
                    (0..p.len())
                        .filter(|&i| valid(i))
                        .for_each(|i| see(p.value(i) as f64));
                }
            }
            info.float_ids.push(id);
            info.float_nans.push(nan as f64);
            info.float_any.push(any);
            info.float_mins.push(min);
            info.float_maxs.push(max);
        }
        DataType::Struct(children) => {
            for (c, child) in children.iter().enumerate() {
                let cols: Vec<ArrayRef> = arrays
                    .iter()
                    .map(|a| a.as_struct().column(c).clone())
                    .collect();
                float_metrics(child, &cols, info);
            }
        }
        _ => {}
    }
}
