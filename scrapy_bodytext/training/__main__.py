import sys

from .crossval import main

sys.exit(main())
