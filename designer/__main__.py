"""``python -m designer``: the same as the ``designer`` command."""

import sys

from designer.cli.main import main

sys.exit(main())
