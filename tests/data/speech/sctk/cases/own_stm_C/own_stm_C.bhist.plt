## GNUPLOT command file
set samples 1000
set key at 30.000000,90.000000
set xrange [0:1]
set yrange [0:100]
set nogrid
set ylabel '% Hypothesis Correct'
set xlabel 'Confidence Scores'
set title  'Binned Confidence scores for ../cases/own_stm_C/own_stm_C'
set size 0.78,1
set nolabel
plot '../cases/own_stm_C/own_stm_C.bhist.dat1' using 1:2 '%lf%lf' title 'True' with boxes,\
     x*100  title 'Predicted' with lines
set size 1.0, 1.0
