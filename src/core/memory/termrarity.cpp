#include "memory/termrarity.h"

#include "store/statement.h"

#include <algorithm>

bool TermRarity::refresh(const QSqlDatabase &db, QString &error)
{
    Statement q(db, QStringLiteral("SELECT count(*) FROM experiences"));
    if (!q.exec() || !q.next()) {
        error = q.error();
        return false;
    }
    const qint64 rows = q.value(0).toLongLong();
    if (m_rows < 0 || std::abs(rows - m_rows) * 20 > m_rows) {
        m_docs.clear();
        m_rows = rows;
    }
    return true;
}

bool TermRarity::distinctive(const QSqlDatabase &db, const QStringList &words, QStringList &chosen,
                             QString &error)
{
    chosen.clear();
    if (!refresh(db, error))
        return false;
    Statement lookup(db, QStringLiteral("SELECT doc FROM experiences_vocab WHERE term = :term"));
    QList<QPair<qint64, QString>> counted;
    for (const QString &word : words) {
        auto it = m_docs.find(word);
        if (it == m_docs.end()) {
            lookup.bind(QStringLiteral(":term"), word);
            if (!lookup.exec()) {
                error = lookup.error();
                return false;
            }
            it = m_docs.insert(word, lookup.next() ? lookup.value(0).toLongLong() : 0);
        }
        if (it.value() > 0)
            counted.append({it.value(), word});
    }
    std::sort(counted.begin(), counted.end());
    qint64 all = 0;
    for (const auto &entry : std::as_const(counted))
        all += entry.first;
    qint64 postings = 0;
    for (const auto &[docs, word] : std::as_const(counted)) {
        // Within the budget every word counts, as bm25 would weigh it; beyond it the common ones go first.
        if (all > postingBudget && (postings + docs > postingBudget || docs * 2 >= m_rows))
            break;
        postings += docs;
        chosen.append(word);
    }
    return true;
}
