"""ssbench: a benchmark suite for OpenStack Swift object storage."""

version = '0.4.0'
__version__ = version

# Job types, spelled as they appear in result records and stats files.
CREATE_OBJECT = 'upload_object'
READ_OBJECT = 'get_object'
UPDATE_OBJECT = 'update_object'
DELETE_OBJECT = 'delete_object'

# CRUD order used by crud_profile lists.
CRUD_TYPES = (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT)
