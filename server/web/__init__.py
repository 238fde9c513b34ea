"""The web layer: the one HTTP application of both ports (:mod:`server.web.api`), the browser
client's static files (HTML, CSS, ES modules, no build step) and the admin pages.

:func:`server.web.static.static_response` maps a GET path to one of the files under
``server/web/static/`` (the game port's routes ``/`` and ``/static/...``,
:mod:`server.web.api.files`); ``docs/browser.md`` explains the page.
"""
