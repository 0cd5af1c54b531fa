"""The S3 store: its client, Signature Version 4 signing, multipart."""
