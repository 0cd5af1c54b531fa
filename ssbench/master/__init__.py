"""The master: one scenario run phase by phase, its flow control,
worker liveness, local workers and the progress characters.
"""
