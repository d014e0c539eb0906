#pragma once

#include "model/evaluation.h"

#include <QList>
#include <QPair>
#include <QString>

// Prints evaluation results as they finish, one row (or one JSON line) each, flushed at once: a suite cut
// short by Ctrl+C keeps every row it finished. The table's header comes with the first row; the runner's
// warnings, the errors too long for their column and what each kernel printed come after the last, so the
// columns stay aligned.
class ResultTable
{
public:
    explicit ResultTable(bool json) : m_json(json) {}
    void add(const QString &label, const Evaluation &evaluation);
    void finish();

private:
    bool m_json;
    bool m_headerPrinted = false;
    QList<QPair<QString, QString>> m_warnings; // label, warning
    QList<QPair<QString, QString>> m_errors;   // label, an error line the column cut short
    QList<QPair<QString, QString>> m_outputs;  // label, what the kernel printed
};
