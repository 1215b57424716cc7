// Package htmlpage holds what rivumi's self-contained HTML pages (the
// audit report, the replay) share: the head that forbids loading anything
// (a Content-Security-Policy with no source but inline style) and the base
// style. A page's template starts with [Head] and goes on inside its
// <style> element.
package htmlpage

// Head opens a page whose template data has a Title: the doctype, the
// policy (nothing loaded from anywhere, no script), the title, and the
// base style, leaving the <style> element open for the page's own rules.
const Head = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 780px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.15em; margin-top: 2em; border-bottom: 1px solid #ddd; }
`
