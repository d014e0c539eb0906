#pragma once

#include <QString>
#include <QStringList>

// The files of a problem in a dataset of the original NKIBench layout (summary.json, reference/, kernels/),
// found by the rule the runner uses (nkibench/runner/accelopt_runner/dataset.py), so the window, the CLI and
// the runner agree on what a name means: summary.json's first case of the problem, else reference/<p>_*.py
// and kernels/<p>_*_0.py (else kernels/<p>*.py).
class DatasetLayout
{
public:
    struct Files
    {
        QString reference;
        QString kernel;
    };

    static Files find(const QString &root, const QString &problem);
    // The problems of a dataset as the runner lists them: summary.json's, else the references' names up to their
    // first parameter. A summary.json that was not read (not a regular file, too big, not JSON, nested too deep)
    // is said in `skipped`, for the caller to warn with.
    static QStringList problems(const QString &root, QString *skipped = nullptr);
    // The problem a file in kernels/ belongs to: the summary.json problem that lists it, else its name up to
    // the first parameter ("silu_M4096_N7168_0.py" -> "silu"), as the runner lists problems. Empty if none.
    static QString problemOfKernel(const QString &root, const QString &kernelFile);
};
