"""The columnar store of many reports' analyses: ``roofline collect`` writes each launch's figures of the report
document (``documents.report``) into a Parquet dataset with one Arrow schema (``schema``), incrementally and one
batch at a time (``dataset``, ``collect``), on this machine or on a Dask cluster's workers (``cluster``);
``roofline query`` asks DuckDB over it (``query``), and ``summary`` ranks its kernels (``summary``).

pyarrow, duckdb and dask are imported inside the functions that use them (``pip install 'roofline[store]'``), so
the command line starts without them."""
