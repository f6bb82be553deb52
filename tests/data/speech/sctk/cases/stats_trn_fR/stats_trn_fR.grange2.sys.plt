set yrange [4:0]
set xrange [0:100]
set title ""
set key
set ylabel "Systems"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("sysB" 1,"sysA" 2,"sysC" 3)
plot "../cases/stats_trn_fR/stats_trn_fR.grange2.sys.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,\
     "../cases/stats_trn_fR/stats_trn_fR.grange2.sys.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,\
     "n" using 2:1 "%lf%lf" title "4t0",\
     "n" using 2:1 "%lf%*s%lf" title "4t1",\
     "n" using 2:1 "%lf%*s%*s%lf" title "4t2"
