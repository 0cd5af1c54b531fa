"""What load to offer: scenario files and their checks, job generation,
the object ring, the open-loop schedule and seeds.  Pure: no sockets.
"""
