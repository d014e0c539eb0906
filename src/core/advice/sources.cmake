# Recommendations: rules over a profile, kept in a data file (rules/recommendations.json).
