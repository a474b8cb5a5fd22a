"""Run the study's SQL (crates/darshan-study/queries/study.sql) with DuckDB
and with Spark (pyspark, local mode) over darshan-ingest's Parquet
dataset, and compare every result with darshan-study's --json output on
the SQLite database of the same ingest.

Usage: check_engines.py STUDY_SQL PARQUET_DIR STUDY_JSON [duckdb] [spark]
Exits 1 on any difference; prints what it compared.
"""
import json
import math
import os
import shutil
import sys


def blocks(text):
    out = []
    for line in text.splitlines():
        for prefix, is_view in (("-- view:", True), ("-- query:", False)):
            if line.startswith(prefix):
                name = line[len(prefix):].split("|")[0].strip()
                out.append({"name": name, "view": is_view, "sql": []})
                break
        else:
            if out and not line.lstrip().startswith("--"):
                out[-1]["sql"].append(line)
    for b in out:
        b["sql"] = "\n".join(b["sql"]).strip()
    return out


def tables(parquet_dir):
    return sorted(d for d in os.listdir(parquet_dir) if os.path.isdir(os.path.join(parquet_dir, d)))


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    a, b = float(a), float(b)
    return a == b or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def compare(engine, name, got_cols, got_rows, want):
    problems = []
    if [c.lower() for c in got_cols] != [c.lower() for c in want["columns"]]:
        problems.append(f"{engine} {name}: columns {got_cols} != {want['columns']}")
        return problems, 0
    if len(got_rows) != len(want["rows"]):
        problems.append(f"{engine} {name}: {len(got_rows)} rows, the database {len(want['rows'])}")
        return problems, 0
    n = 0
    for i, (g, w) in enumerate(zip(got_rows, want["rows"])):
        for c, gv, wv in zip(want["columns"], g, w):
            n += 1
            if not same(gv, wv):
                problems.append(f"{engine} {name} row {i} {c}: {gv!r} != {wv!r}")
    return problems, n


def run_blocks(bl, execute, query):
    """Each view through `execute(sql)`, each query through `query(sql)`
    (-> columns, rows), in the file's order."""
    results = {}
    for b in bl:
        if b["view"]:
            execute(b["sql"])
        else:
            results[b["name"]] = query(b["sql"])
    return results


def run_duckdb(bl, parquet_dir):
    import duckdb

    con = duckdb.connect()
    for t in tables(parquet_dir):
        glob = os.path.join(parquet_dir, t, "**", "*.parquet")
        con.execute(
            f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{glob}', hive_partitioning = true, union_by_name = true)"
        )

    def query(sql):
        cur = con.execute(sql)
        return [d[0] for d in cur.description], [list(r) for r in cur.fetchall()]

    return run_blocks(bl, con.execute, query)


def run_spark(bl, parquet_dir):
    # The JVM's scratch (block manager, java.io.tmpdir, hsperfdata) goes
    # beside the dataset under target/, not into /tmp, and is removed after.
    scratch = os.path.join(os.path.dirname(os.path.abspath(parquet_dir)), "spark-scratch")
    os.makedirs(scratch, exist_ok=True)
    os.environ["JAVA_TOOL_OPTIONS"] = f"-XX:-UsePerfData -Djava.io.tmpdir={scratch}"
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("darshan-study-check")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.local.dir", scratch)
        .config("spark.sql.warehouse.dir", os.path.join(scratch, "warehouse"))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for t in tables(parquet_dir):
            # Files exported before a schema upgrade lack its columns.
            spark.read.option("mergeSchema", "true").parquet(os.path.join(parquet_dir, t)).createOrReplaceTempView(t)
        def query(sql):
            df = spark.sql(sql)
            return df.columns, [list(r) for r in df.collect()]

        return run_blocks(bl, spark.sql, query)
    finally:
        spark.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def self_test(want):
    """The comparison must be able to fail: one changed value is caught."""
    t = next(t for t in want.values() if t["rows"])
    rows = [list(r) for r in t["rows"]]
    i = next(i for i, v in enumerate(rows[0]) if isinstance(v, (int, float)))
    rows[0][i] = rows[0][i] * 1.001 + 1
    if not compare("self-test", t["name"], t["columns"], rows, t)[0]:
        print("self-test: a changed value was not caught")
        sys.exit(1)


def main():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sql_path, parquet_dir, study_json = sys.argv[1:4]
    engines = sys.argv[4:] or ["duckdb", "spark"]
    bl = blocks(open(sql_path).read())
    study = json.load(open(study_json))
    want = {t["name"]: t for t in study["tables"]}
    queries = [b["name"] for b in bl if not b["view"]]
    if sorted(queries) != sorted(want):
        print(f"the SQL file's queries {queries} are not the study's {sorted(want)}")
        return 1
    self_test(want)
    problems = []
    for engine in engines:
        res = run_duckdb(bl, parquet_dir) if engine == "duckdb" else run_spark(bl, parquet_dir)
        total = 0
        for name in queries:
            cols, rows = res[name]
            p, n = compare(engine, name, cols, rows, want[name])
            problems += p
            total += n
        rows = sum(len(want[q]["rows"]) for q in queries)
        print(f"{engine}: {len(queries)} queries, {rows} rows, {total} values compared with the SQLite database")
    for p in problems[:40]:
        print(p)
    if problems:
        print(f"{len(problems)} differences")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
