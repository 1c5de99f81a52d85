"""The HTTP routes a memwarden server answers the prompt hook on.

The server (``http/app.py``) serves them and the hook's clients (``hooks/recall.py``,
``hooks/quick.py``, ``memwarden doctor``) post to them, so the words sit here, below both: a
transport never imports a hook client to learn a path.
"""

#: The hook's search: the hits for a prompt, which the hook renders (``hooks.recall``).
RECALL_PATH = "/hooks/recall"
#: A whole prompt hook: the hook JSON in, the line the hook prints out (``hooks.quick``).
PROMPT_PATH = "/hooks/prompt"
