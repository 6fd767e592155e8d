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
