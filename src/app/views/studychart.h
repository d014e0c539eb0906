#pragma once

#include "study/studyresult.h"

#include <QColor>
#include <QString>

class QChart;

// The Study view's chart (issue 36): best % of peak against the cost spent, one line per arm of one task, a
// point after each round (StudyResult::chart). The x axis is money when every arm is priced, else tokens, and
// its title says which and why. With repeats, each arm's spread (least to most of its repeats at each round)
// is a band in the arm's colour behind its line. Each line carries the property "arm", each band "band"
// (the arm's name), so a reader finds them without relying on their order. Returns a new chart the caller owns.
class StudyChart
{
public:
    static QChart *build(const StudyResult &result, const QString &task);
    static QString axisTitle(const StudyResult &result);
    // The arm's colour: fixed per position in the study, so a line keeps its colour as the study grows.
    static QColor armColor(int index);
};
