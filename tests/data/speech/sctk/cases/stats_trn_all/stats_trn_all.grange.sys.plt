set yrange [4:0]
set xrange [0:100]
set title "three csrnab systems"
set key
set ylabel "Systems"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("sysB" 1,"sysA" 2,"sysC" 3)
plot "../cases/stats_trn_all/stats_trn_all.grange.sys.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,"../cases/stats_trn_all/stats_trn_all.grange.sys.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,"../cases/stats_trn_all/stats_trn_all.grange.sys.dat" using 2:1 title "Individual Speaker Word Error Rate (%)"
