from .parser import parse_env
