"""Tables and content -> HTML and Markdown, per locale."""
