"""report -- what a reader sees: REPORT.md, the terminal tables, the charts
(report/charts), the exports, and the README's generated answer.  Imports every
layer below it, never tools."""
