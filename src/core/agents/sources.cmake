# The agents (DESIGN.md §7): prompt templates and the pure message builders / reply parsers.
target_sources(accelopt_core PRIVATE
  agents/executor.cpp agents/executor.h
  agents/fencedblocks.cpp agents/fencedblocks.h
  agents/fixer.cpp agents/fixer.h
  agents/kernelextractor.cpp agents/kernelextractor.h
  agents/parseresult.h
  agents/planner.cpp agents/planner.h
  agents/profileglossary.cpp agents/profileglossary.h
  agents/promptlibrary.cpp agents/promptlibrary.h
  agents/prompttemplate.cpp agents/prompttemplate.h
  agents/replytext.cpp agents/replytext.h
  agents/summarizer.cpp agents/summarizer.h)
