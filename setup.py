"""Packaging for ssbench (Python 2.7 and 3.6+ from one code base)."""
import io
import os
import re

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def read_version():
    with io.open(os.path.join(HERE, 'ssbench', '__init__.py'),
                 encoding='utf-8') as fp:
        return re.search(r"^version = '([^']+)'", fp.read(), re.M).group(1)


PY2 = 'python_version < "3"'
PY3 = 'python_version >= "3"'

INSTALL_REQUIRES = [
    'pyzmq>=19.0.2,<20; ' + PY2,
    'pyzmq>=19.0.2; ' + PY3,
    'gevent>=21.12.0,<22; ' + PY2,
    'gevent>=21.12.0; ' + PY3,
    # msgpack 1.x has no C extension on Python 2: 0.6 is 5-8x faster there.
    'msgpack>=0.6.1,<0.7; ' + PY2,
    'msgpack>=1.0.0; ' + PY3,
]

# What the unit suite needs beside ssbench (tools/unit-tests installs
# these alone; the test extra has them and the e2e tests' tools).
UNIT_TESTS = [
    # The reference the SigV4 signer (ssbench.s3) is tested against, and
    # what the e2e tests look at an S3 store with; 1.20 is the last for
    # Python 2.
    'botocore>=1.20.112,<1.21; ' + PY2,
    'botocore>=1.20.112; ' + PY3,
    'mock>=3.0.5,<4; ' + PY2,
    'mock>=3.0.5; ' + PY3,
    'pytest>=4.6,<5; ' + PY2,
    'pytest>=6; ' + PY3,
    'pytest-timeout>=1.3,<2; ' + PY2,
    'pytest-timeout>=1.4; ' + PY3,
    # tests/unit/test_docs.py parses README.rst and docs/ with it; 0.18
    # is the last for Python 2.
    'docutils>=0.18.1,<0.19; ' + PY2,
    'docutils>=0.18.1; ' + PY3,
    # The live view's tests scrape --metrics (the metrics extra).
    'prometheus-client>=0.12,<0.13; ' + PY2,
    'prometheus-client>=0.12; ' + PY3,
]

EXTRAS_REQUIRE = {
    # Keystone v2.0/v3 auth (ssbench.swift.auth): keystoneauth1's sessions
    # and identity plugins, nothing else.  4.0 is the last for Python 2.
    'keystone': [
        'keystoneauth1>=3.18,<4.1; ' + PY2,
        'keystoneauth1>=3.18; ' + PY3,
    ],
    'test': UNIT_TESTS + [
        # flake8 3.9 is the last for Python 2; tools/run-tests runs the
        # Python 3 one.
        'flake8>=3.9.2,<3.10; ' + PY2,
        'flake8>=3.9.2; ' + PY3,
        # The e2e tests look at the account with swiftclient, apart from
        # ssbench's own client; through Keystone it needs keystoneclient.
        'python-swiftclient>=3.13.1,<3.14; ' + PY2,
        'python-swiftclient>=3.13.1; ' + PY3,
        'python-keystoneclient>=3.22,<4; ' + PY2,
        'python-keystoneclient>=3.22; ' + PY3,
        # The browser test of the HTML report (Debian's chromedriver).
        'selenium>=4.11; python_version >= "3.8"',
        # deploy/ansible: run for real by tests/e2e/test_ansible.py and
        # linted by tests/unit/test_deploy.py (their controller needs 3.11).
        'ansible-core>=2.16; python_version >= "3.11"',
        'ansible-lint>=24; python_version >= "3.11"',
    ],
    'unit': UNIT_TESTS,
    # run-scenario --metrics: the Prometheus endpoint's formats.  0.12 is
    # the last for Python 2.
    'metrics': [
        'prometheus-client>=0.12,<0.13; ' + PY2,
        'prometheus-client>=0.12; ' + PY3,
    ],
    # report-scenario --html: plotly.js, inlined in the page.
    'html': [
        'plotly>=4.14.3,<5; ' + PY2,
        'plotly>=5; ' + PY3,
    ],
}

with io.open(os.path.join(HERE, 'README.rst'), encoding='utf-8') as fp:
    LONG_DESCRIPTION = fp.read()

setup(
    name='ssbench',
    version=read_version(),
    description='Benchmark suite for OpenStack Swift object storage',
    long_description=LONG_DESCRIPTION,
    license='Apache License (2.0)',
    packages=find_packages(exclude=['tests', 'tests.*']),
    python_requires='>=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*, !=3.4.*, '
                    '!=3.5.*',
    install_requires=INSTALL_REQUIRES,
    extras_require=EXTRAS_REQUIRE,
    entry_points={
        'console_scripts': [
            'ssbench-master = ssbench.cli.master:main',
            'ssbench-worker = ssbench.cli.worker:main',
        ],
    },
    classifiers=[
        'License :: OSI Approved :: Apache Software License',
        'Programming Language :: Python :: 2.7',
        'Programming Language :: Python :: 3',
        'Topic :: System :: Benchmark',
    ],
)
