#pragma once

#include "model/evalprofile.h"

#include <QByteArray>
#include <QString>

// The timeline as Chrome trace-event JSON (the "JSON Object Format": {"traceEvents": [...]}), which Perfetto
// and chrome://tracing open: one thread per unit (Tensor, Vector, Scalar, GpSimd, each DMA queue), one
// complete ("X") event per instruction with its op, line, shape and bytes as args; times in microseconds.
class ChromeTrace
{
public:
    static QByteArray toJson(const EvalProfile::Timeline &timeline, const QString &kernelName);
    // Written whole or not at all (a temporary file renamed into place); false with the reason in `error`.
    static bool write(const QString &path, const EvalProfile::Timeline &timeline, const QString &kernelName,
                      QString &error);
};
