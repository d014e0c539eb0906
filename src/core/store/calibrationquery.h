#pragma once

#include "model/calibration.h"

#include <QList>
#include <QString>

class Database;

// The workspace's side of calibration (issue 34): every ok latency of a kernel whose backend is known, with
// the kernel's hash, task, target and roofline bound, for Calibration::fromRuns to pair. A run taken over
// from a twin is left out (it is another row's copy), and so is a wrong kernel's. Failures return nothing and
// leave the reason in lastError().
class CalibrationQuery
{
public:
    explicit CalibrationQuery(const Database &db) : m_db(db) {}

    QList<CalibrationRun> runs();
    QString lastError() const { return m_error; }

private:
    const Database &m_db;
    QString m_error;
};
