"""Rendering computed figures: the 0.3.9 text/CSV report, JSON, HTML
and the error table.
"""
