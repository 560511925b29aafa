"""Spark 3.5 + Iceberg jobs of the `compact-1gb` benchmark (python from `bash bench/setup-spark.sh`).

usage: spark_job.py rewrite WAREHOUSE      CALL bench.system.rewrite_data_files('db.events') — the peer
       spark_job.py pos-deletes WAREHOUSE  merge-on-read DELETE of every row with id % 20 = 0: one
                                           position-delete file per data file (write.delete.granularity=file)
The table is WAREHOUSE/db/events, a filesystem table (Spark's hadoop catalog). local[2]; env
ICEBERG_SPARK_JAR names the runtime jar, SPARK_DRIVER_MEMORY the heap (default 4g),
SPARK_REWRITE_OPTIONS the procedure's options as k=v,k=v (e.g. min-input-files=2).
Prints one JSON line: {"seconds" (inside the job, after JVM start), "result": ...}.
"""
from __future__ import annotations

import json
import os
import sys
import time

from pyspark.sql import SparkSession


def session(warehouse: str) -> SparkSession:
    return (
        SparkSession.builder.master("local[2]")
        .appName("floe-bench")
        .config("spark.jars", os.environ["ICEBERG_SPARK_JAR"])
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "4g"))
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.bench.type", "hadoop")
        .config("spark.sql.catalog.bench.warehouse", f"file://{os.path.abspath(warehouse)}")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )


def main() -> None:
    mode, warehouse = sys.argv[1], sys.argv[2]
    spark = session(warehouse)
    spark.sparkContext.setLogLevel("ERROR")
    t0 = time.time()
    if mode == "rewrite":
        opts = os.environ.get("SPARK_REWRITE_OPTIONS", "")  # k=v,k=v → options => map(...)
        pairs = [kv.split("=", 1) for kv in opts.split(",") if kv]
        arg = ", options => map(" + ", ".join(f"'{k}', '{v}'" for k, v in pairs) + ")" if pairs else ""
        row = spark.sql(f"CALL bench.system.rewrite_data_files(table => 'db.events'{arg})").collect()[0]
        result = row.asDict()
    elif mode == "pos-deletes":
        spark.sql(
            "ALTER TABLE bench.db.events SET TBLPROPERTIES ('write.delete.mode'='merge-on-read', "
            "'write.delete.granularity'='file')"
        )
        spark.sql("DELETE FROM bench.db.events WHERE id % 20 = 0")
        files = spark.sql("SELECT content, count(*) AS n FROM bench.db.events.delete_files GROUP BY content").collect()
        result = {"deleteFiles": {str(r["content"]): r["n"] for r in files}}
    else:
        sys.exit(f"unknown mode {mode}")
    seconds = time.time() - t0
    spark.stop()
    print(json.dumps({"seconds": seconds, "result": result}, default=str))


if __name__ == "__main__":
    main()
