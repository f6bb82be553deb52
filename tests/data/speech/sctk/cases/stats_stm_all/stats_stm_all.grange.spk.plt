set yrange [5:0]
set xrange [0:100]
set title "three lvc ctm systems"
set key
set ylabel "Speaker ID"
set xlabel "Speaker Word Error Rate (%)"
set ytics ("2347-b" 1,"2347-a" 2,"3129-b" 3,"3129-a" 4)
plot "../cases/stats_stm_all/stats_stm_all.grange.spk.mean" using 2:1 title "Mean Speaker Word Error Rate (%)" with lines,"../cases/stats_stm_all/stats_stm_all.grange.spk.median" using 2:1 title "Median Speaker Word Error Rate (%)" with lines,"../cases/stats_stm_all/stats_stm_all.grange.spk.dat" using 2:1 title "Individual Speaker Word Error Rate (%)"
