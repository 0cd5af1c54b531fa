"""File logging for the Swift servers started by tools/saio.

This module is copied into $SAIO_DIR/lib and put on the servers' PYTHONPATH.
It runs inside the Swift virtualenv, never inside ssbench.

Swift logs to syslog only (/dev/log, else UDP to localhost:514). The machines
we run on have no syslog daemon, so two hooks send the logs to plain files:

* ``file_handler`` is a ``log_custom_handlers`` hook: for a server whose conf
  has ``saio_log_file = PATH`` it drops Swift's syslog handler and appends
  to PATH instead (one line per record, local time first).
* ``proxy_logging_filter`` is a paste filter factory that builds swift's own
  proxy-logging middleware with an access logger that writes to
  ``access_log_file = PATH``. With one such filter at the head of the
  pipeline, every client request to that proxy adds exactly one line, so
  tests can count requests per proxy by counting lines. Sub-requests that
  middlewares make inside the proxy (``swift.source`` set, e.g. the account
  auto-create HEAD) are not written.
"""
from __future__ import absolute_import, division, print_function

import logging
import logging.handlers
import time


class _TimestampFormatter(logging.Formatter):
    """Prefix another formatter's output with the local time."""

    def __init__(self, inner):
        logging.Formatter.__init__(self)
        self.inner = inner

    def format(self, record):
        text = self.inner.format(record) if self.inner else record.getMessage()
        stamp = time.strftime('%Y-%m-%d %H:%M:%S',
                              time.localtime(record.created))
        return '%s.%03d %s' % (stamp, int(record.msecs), text)


def file_handler(conf, name, log_to_console, log_route, fmt, logger,
                 adapted_logger):
    """log_custom_handlers hook: send this logger to conf['saio_log_file']."""
    path = conf.get('saio_log_file')
    if not path:
        return
    from swift.common.utils.logs import get_swift_logger
    syslog = getattr(get_swift_logger, 'handler4logger', {}).get(logger)
    inner = None
    if syslog is not None:
        inner = syslog.formatter
        logger.removeHandler(syslog)
        try:
            syslog.close()
        except Exception:  # a closed socket is all we want
            pass
    # get_swift_logger runs once per (re)configuration of the same logger;
    # keep a single file handler per logger and path.
    for handler in logger.handlers:
        if getattr(handler, 'saio_path', None) == path:
            handler.setFormatter(_TimestampFormatter(inner))
            return
    handler = logging.handlers.WatchedFileHandler(path)
    handler.saio_path = path
    handler.setFormatter(_TimestampFormatter(inner))
    logger.addHandler(handler)


def proxy_logging_filter(global_conf, **local_conf):
    """Paste filter factory: swift's proxy-logging, access log to a file."""
    from swift.common.middleware.proxy_logging import ProxyLoggingMiddleware
    from swift.common.utils import get_logger

    conf = dict(global_conf)
    conf.update(local_conf)
    path = conf.get('access_log_file')

    class ClientRequestLogging(ProxyLoggingMiddleware):
        def log_request(self, req, *args, **kwargs):
            if req.environ.get('swift.source'):
                return None
            return super(ClientRequestLogging, self).log_request(
                req, *args, **kwargs)

    def factory(app):
        logger = None
        if path:
            logger = get_logger(
                {'log_name': conf.get('access_log_name',
                                      conf.get('log_name', 'proxy-server')),
                 'log_level': 'INFO',
                 'log_custom_handlers': 'saio_logging.file_handler',
                 'saio_log_file': path},
                log_route=conf.get('access_log_route', 'proxy-access'))
        return ClientRequestLogging(app, conf, logger=logger)
    return factory
