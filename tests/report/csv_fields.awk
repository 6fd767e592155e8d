# csv_fields.awk — for tests/report/test_csv_roundtrip.c: prints the field count of
# each line as paper/lib.awk's csv_split reads it, then each field in [].
{ n = csv_split($0, f); print n; for (i = 1; i <= n; i++) print "[" f[i] "]" }
