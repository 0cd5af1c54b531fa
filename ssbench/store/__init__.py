"""What every store (Swift, S3) stands on: the HTTP/1.1 connection and its
pool, the timed, retried request loop (client.StoreClient), what a request
reports (outcome), many requests timed as one (segments), listing pages
and cleanup (docs/internals.rst, "Stores")."""
