"""Where the tests find the tree's files, wherever a test module sits."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, 'tests', 'data')
GOLDEN = os.path.join(DATA, 'golden')
BAD = os.path.join(DATA, 'bad')
SCENARIOS = os.path.join(ROOT, 'scenarios')
