"""Suites: steps planned from sweeps or a suite file (plan), run with the
same workers (sharedworkers, runner), saved to suite.json (savefile,
folder) and resumed (resume); the capacity search (capacitysearch,
maxrate), the steadiness watch (steadystate) and the report of a suite
folder (reportfolder).
"""
