"""A static site generator for GPU-sizing guide pages.

The pipeline, one package each:

    load     data/*.yaml -> typed, validated model (errors name file:line: field)
    calc     the model -> every figure the pages show (pure, Decimal)
    tables   figures -> table objects (cells keep value, unit, flags, formula)
    render   tables and content -> HTML and Markdown per locale
    publish  pages -> site/ (atomic, deterministic)
"""
