set yrange [4:0]
set xrange [0:100]
set title "three csrnab systems"
set key
set ylabel "Speaker ID"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("4t1" 1,"4t2" 2,"4t0" 3)
plot "../cases/stats_trn_all/stats_trn_all.grange.spk.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,"../cases/stats_trn_all/stats_trn_all.grange.spk.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,"../cases/stats_trn_all/stats_trn_all.grange.spk.dat" using 2:1 title "Individual Speaker Word Error Rate (%)"
