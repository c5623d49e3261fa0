"""Writers of a method's selection: plain text (``text``), and Markdown or cleaned HTML over one
structural walk (``structure``, ``markdown``, ``formats``). The format changes how the selected text
is written, never what is selected."""
