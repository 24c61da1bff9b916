"""The HTML reports: one page frame (``page``) and the sections of each command's report
(``leaderboard``, ``similarity``, ``brainscore``). The reports draw and print finished results;
they compute no statistics.
"""
