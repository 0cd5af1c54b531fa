"""Turning a stats file into reports: computing (compute/) apart from
rendering (render/); comparing runs and gating on them.
"""
