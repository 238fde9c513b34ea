"""The browser client: static files (HTML, CSS, ES modules) served by the hub, no build step.

:func:`server.web.static.static_response` maps a GET path to one of the files under
``server/web/static/``; ``docs/browser.md`` explains the page.
"""
