exports = ({ token, tokenId, username }) => {
  // Readers with a bookshelf.example.com address are confirmed at once.
  return { status: username.endsWith("@bookshelf.example.com") ? "success" : "pending" };
};
