"""What every store (Swift, S3) stands on: the HTTP/1.1 connection, the
timed, retried request loop (client.StoreClient), what a request reports,
paging, cleanup, large objects' timing (docs/internals.rst, "Stores")."""
