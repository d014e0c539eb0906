#include "resulttable.h"

#include "console.h"
#include "terminaltext.h"

#include <QJsonDocument>
#include <QTextStream>

namespace {
QString cell(const std::optional<double> &value, int precision)
{
    return value ? QString::number(*value, 'f', precision) : QStringLiteral("-");
}

QString row(const QString &task, const QString &status, const QString &correct, const QString &l2,
            const QString &latency, const QString &peak, const QString &bound, const QString &error)
{
    return QStringLiteral("%1 %2 %3 %4 %5 %6 %7  %8\n")
        .arg(task, -24)
        .arg(status, -14)
        .arg(correct, -8)
        .arg(l2, 11)
        .arg(latency, 12)
        .arg(peak, 7)
        .arg(bound, -7)
        .arg(error);
}
} // namespace

void ResultTable::add(const QString &label, const Evaluation &e)
{
    QTextStream &out = Console::out();
    for (const QString &warning : e.warnings)
        m_warnings.append({label, warning});
    // A kernel the host's SDK refuses for its NKI generation: the whole message says how to port it, and the
    // table's column shows only its start.
    const bool portError = e.raw.value(QStringLiteral("port")).isObject() && !e.error.isEmpty();
    if (portError)
        m_warnings.append({label, e.error});
    // Any other error whose first line the column cuts short is said whole after the table: its end says
    // what is allowed and what to do.
    const QString firstLine = e.error.section(u'\n', 0, 0);
    if (!m_json && !portError && firstLine.size() > 100)
        m_errors.append({label, firstLine});
    if (const QString printed = e.raw.value(QStringLiteral("output")).toString(); !m_json && !printed.isEmpty())
        m_outputs.append({label, printed});
    if (m_json) {
        out << QJsonDocument(e.summaryJson(label)).toJson(QJsonDocument::Compact) << "\n";
    } else {
        if (!m_headerPrinted)
            out << row(QStringLiteral("task"), QStringLiteral("status"), QStringLiteral("correct"),
                       QStringLiteral("l2_rel_err"), QStringLiteral("latency_ms"), QStringLiteral("%peak"),
                       QStringLiteral("bound"), QStringLiteral("error"));
        m_headerPrinted = true;
        const QString correct =
            e.correct ? (*e.correct ? QStringLiteral("yes") : QStringLiteral("no")) : QStringLiteral("-");
        out << row(label, e.statusName(), correct,
                   e.l2RelErr ? QString::number(*e.l2RelErr, 'e', 2) : QStringLiteral("-"),
                   cell(e.latencyMeanMs, 3), cell(e.percentOfPeak, 1), e.bound.isEmpty() ? QStringLiteral("-") : e.bound,
                   firstLine.left(100));
    }
    out.flush();
}

void ResultTable::finish()
{
    if (m_json)
        return; // each JSON line carries its own warnings
    QTextStream &out = Console::out();
    for (const auto &[label, warning] : std::as_const(m_warnings))
        out << "warning: " << label << ": " << warning << "\n";
    for (const auto &[label, error] : std::as_const(m_errors))
        out << "error: " << label << ": " << error << "\n";
    // The kernel's prints are its own text: shown as text, never as terminal commands.
    for (const auto &[label, printed] : std::as_const(m_outputs)) {
        out << "output: " << label << ":\n" << TerminalText::block(printed);
        if (!printed.endsWith(u'\n'))
            out << "\n";
    }
    out.flush();
    m_warnings.clear();
    m_errors.clear();
    m_outputs.clear();
}
