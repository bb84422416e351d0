// Package reports turns run results into what a paper needs: every figure as
// SVG, PDF and PNG with the CSV of the data behind it, summary tables as CSV
// and Markdown (computed with gota dataframes), and one self-contained HTML
// report carrying the metadata that makes the runs reproducible.
//
// Reports compute no metrics: every number they draw comes from the run
// records written by package runs (metrics are computed once, in sim). What
// a report does is select, group (per grid point and policy, over seeds),
// aggregate over seeds (mean, spread) and draw.
//
// The input is a Set (Load): run records read from result folders or files,
// checked to form one experiment. The output is a folder (Write), built in
// a temporary folder and renamed into place, so that a report is written
// completely or not at all:
//
//	DIR/index.html            the report: figures inline as SVG, tables, metadata
//	DIR/report.md             the same tables, with links to the figures
//	DIR/report.json           the manifest: runs, figures, tables, inputs
//	DIR/figures/NAME.svg|pdf|png|csv
//	DIR/tables/NAME.csv|md
package reports
