set yrange [4:0]
set xrange [0:100]
set title ""
set key
set ylabel "Speaker ID"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("4t1" 1,"4t2" 2,"4t0" 3)
plot "../cases/stats_trn_fR/stats_trn_fR.grange2.spk.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,\
     "../cases/stats_trn_fR/stats_trn_fR.grange2.spk.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,\
     "n" using 2:1 "%lf%lf" title "sysA",\
     "n" using 2:1 "%lf%*s%lf" title "sysB",\
     "n" using 2:1 "%lf%*s%*s%lf" title "sysC"
