"""tasks/templette"""
