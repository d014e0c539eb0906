# Recommendations: rules over a profile, kept in a data file (rules/recommendations.json).
target_sources(accelopt_core PRIVATE
  advice/advisor.cpp advice/advisor.h
  advice/advicetemplate.cpp advice/advicetemplate.h
  advice/profilevalues.cpp advice/profilevalues.h
  advice/rulecondition.cpp advice/rulecondition.h
  advice/ruleset.cpp advice/ruleset.h
  advice/valueunit.cpp advice/valueunit.h
  advice/evidence.h advice/finding.h advice/rule.h advice/severity.h)
