# common.gp — what every ratelab figure shares: the terminal (PNG at page
# width, or SVG, chosen by the file name), fonts, grid and line styles.
# Callers set `out` (plots/out/NAME.png or .svg) before loading this.
if (out[strlen(out)-3:] eq '.svg') {
    set terminal svg size 1280,800 dynamic noenhanced font 'DejaVu Sans,12'
} else {
    set terminal pngcairo size 1280,800 noenhanced font 'DejaVu Sans,12'
}
set output out
set grid back lc rgb '#dddddd'
set border 3
set tics nomirror out
set key outside right top box opaque samplen 2
set datafile missing 'NaN'
# Styles 1–8 for figures with many lines: colour (Okabe–Ito, without the
# yellow that vanishes on white), dash and point all differ, so lines stay
# apart where they cross, overlap, or print in grey. `ls i` opts in; plain
# linetypes (figures not using them) keep gnuplot's defaults. Every point
# is filled (or a star or cross): a hollow mark, a filled one with a white
# centre, means within noise (noise.awk).
array ls_color[8] = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000', '#882255']
array ls_dash[8] = ['', '- ', '.', '-.', '__ ', '-..', '__.', '. . ']
array ls_point[8] = [7, 5, 9, 11, 13, 15, 3, 2]
do for [i = 1:8] {
    set style line i lc rgb ls_color[i] lw 2 pt ls_point[i] ps 0.8 dt solid
    if (i > 1) { set style line i dt ls_dash[i] }
}
# Overlays drawn only for flagged rows (hollow marks: within noise) put the
# file's first row off the axis (x = -1e3, or 1e-9 on a log axis) when it is
# not flagged, so a panel with no flagged row draws nothing and gnuplot does
# not warn about an empty plot.
