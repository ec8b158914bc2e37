exports = ({ token, tokenId, username, password }, currentPasswordValid) => {
  return { status: "pending" };
};
