"""Talking to an S3 store: Signature Version 4 signing."""
