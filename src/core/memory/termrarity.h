#pragma once

#include <QHash>
#include <QSqlDatabase>
#include <QStringList>

// Chooses the words of the planner's query text (a whole kernel) that say something about similarity, and
// that the full-text index can answer quickly. bm25 weighs a word by its rarity and gives one that occurs in
// half the experiences or more no weight at all, yet reading a word's postings costs time in proportion to
// how many experiences hold it: NKI boilerplate ("nl", "load", "tile") would cost most and count least. So
// when all words together would exceed a budget of postings, the rarest words are kept, as many as fit,
// which bounds the query's cost at any size of the memory; a small memory is searched with every word.
//
// The document counts are cached: they change slowly, and reading a common word's count costs as much as
// searching for it. The cache is dropped when the number of experiences has changed by more than 5%.
class TermRarity
{
public:
    static constexpr qint64 postingBudget = 12000;

    // The words that some experience holds, rarest first: all of them when their postings fit the budget,
    // else the rarest that fit, none held by half the experiences. `words` are lower case.
    // False on a read error, with `error` set.
    bool distinctive(const QSqlDatabase &db, const QStringList &words, QStringList &chosen, QString &error);

private:
    bool refresh(const QSqlDatabase &db, QString &error);

    QHash<QString, qint64> m_docs;
    qint64 m_rows = -1; // the number of experiences when the cached counts were read
};
