"""One record of a job's state (issue 35): the work's task row (work_tasks) says a job's status, progress, message
and error, which every page reads; the jobs table keeps only the resume record of each unit job (status: are its
units all done; done/total: where it stands; state: where to continue). Until now the runner wrote a failed job's
error in both; `jobs.error` goes, its text moved to the task row where that row is the same failed job and has none.

DROP COLUMN is plain SQL on PostgreSQL and on SQLite from 3.35 (2021). It is not a batch copy of the table on
purpose: SQLite's copy-and-rename would drop `jobs` under PRAGMA foreign_keys=ON, which sets every summary's and
usage record's job_id to NULL. On an older SQLite the column stays, unused (nullable, absent from the model).

Revision ID: 0014
Revises: 0013
"""
import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_MOVE_ERROR = """
UPDATE work_tasks SET error = (
    SELECT j.error FROM jobs j WHERE j.work_id = work_tasks.work_id AND j.kind = work_tasks.kind
    ORDER BY j.id DESC LIMIT 1)
WHERE status = 'failed' AND error IS NULL
"""


def _drops_columns() -> bool:
    dialect = op.get_bind().dialect.name
    return dialect != "sqlite" or sqlite3.sqlite_version_info >= (3, 35)


def upgrade() -> None:
    op.execute(sa.text(_MOVE_ERROR))
    if _drops_columns():
        op.execute(sa.text("ALTER TABLE jobs DROP COLUMN error"))


def downgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("jobs")}
    if "error" not in columns:
        op.add_column("jobs", sa.Column("error", sa.Text(), nullable=True))  # ADD COLUMN: no table copy either
    op.execute(sa.text("""
UPDATE jobs SET error = (SELECT t.error FROM work_tasks t WHERE t.work_id = jobs.work_id AND t.kind = jobs.kind)
WHERE status = 'failed' AND id IN (SELECT MAX(id) FROM jobs GROUP BY work_id, kind)
"""))
