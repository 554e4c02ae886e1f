"""One module per ``d3mkit`` subcommand: argument definitions plus a thin ``run``.

A command parses arguments, calls the library and prints; the logic lives in the library.
Command modules import nothing heavy at module level, so ``d3mkit COMMAND --help`` is fast.
"""



def seed_value(text: str) -> int:
    """argparse type of ``--seed`` (:func:`d3mkit.benchmarks.config.seed_value`, imported
    only when a command that takes a seed runs, to keep start-up light)."""
    from d3mkit.benchmarks.config import seed_value as check
    return check(text)


def lazy_parser(parser_class):
    """``parser_class`` whose ``setup(parser)``, when set (:func:`defer`), runs once before
    the parser is first used, to parse or to print its help: a command's heavy options
    (those a benchmark module declares) are added only when that command is parsed, so
    ``d3mkit --help`` does not import them."""
    if hasattr(parser_class, "_ready"):
        return parser_class

    class LazyParser(parser_class):
        setup = None

        def _ready(self):
            setup, self.setup = self.setup, None
            if setup is not None:
                setup(self)

        def parse_known_args(self, args=None, namespace=None):
            self._ready()
            return super().parse_known_args(args, namespace)

        def format_help(self):
            self._ready()
            return super().format_help()

        def format_usage(self):
            self._ready()
            return super().format_usage()
    LazyParser.__name__ = LazyParser.__qualname__ = f"Lazy{parser_class.__name__}"
    return LazyParser


def defer(parser, setup) -> None:
    """``setup(parser)`` when ``parser`` is first used if it is a :func:`lazy_parser`, else now."""
    if hasattr(parser, "_ready"):
        parser.setup = setup
    else:
        setup(parser)

