#include "search/inflight.h"

#include <utility>

InFlight::Token::Token(Token &&other) noexcept
    : m_owner(std::exchange(other.m_owner, nullptr)), m_key(std::exchange(other.m_key, 0))
{
}

InFlight::Token &InFlight::Token::operator=(Token &&other) noexcept
{
    if (this != &other) {
        release();
        m_owner = std::exchange(other.m_owner, nullptr);
        m_key = std::exchange(other.m_key, 0);
    }
    return *this;
}

void InFlight::Token::release()
{
    if (InFlight *owner = std::exchange(m_owner, nullptr))
        owner->close(m_key);
}

InFlight::Key InFlight::open()
{
    const Key key = ++m_last;
    m_open.insert(key);
    return key;
}

void InFlight::close(Key key)
{
    // Only the close that empties the set ends the step; one of an unknown key changes nothing.
    if (!m_open.remove(key) || !m_open.isEmpty())
        return;
    if (m_idle)
        m_idle();
}

InFlight::Token InFlight::hold()
{
    return Token(this, open());
}

InFlight::Token InFlight::redeem(Key key)
{
    return Token(this, key);
}

void InFlight::clear()
{
    m_open.clear();
}
