set yrange [4:0]
set xrange [0:100]
set title "three lvc ctm systems"
set key
set ylabel "Systems"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("sysA" 1,"sysB" 2,"sysC" 3)
plot "../cases/stats_stm_all/stats_stm_all.grange.sys.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,"../cases/stats_stm_all/stats_stm_all.grange.sys.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,"../cases/stats_stm_all/stats_stm_all.grange.sys.dat" using 2:1 title "Individual Speaker Word Error Rate (%)"
